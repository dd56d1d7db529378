// Shared data of the adoption site: species, ages and regions with their URL codes.
// Countries are listed alphabetically; three of them have a town called Perth.
window.ADOPT = {
  species: { rabbit: "Rabbits", cat: "Cats", dog: "Dogs", "guinea-pig": "Guinea pigs" },
  ages: { baby: "Baby (under 6 months)", young: "Young (6–12 months)", adult: "Adult (1–6 years)",
          senior: "Senior (6+ years)" },
  countries: [
    ["Australia", [["au-perth", "Perth", "Western Australia"], ["au-sydney", "Sydney", "New South Wales"],
      ["au-melbourne", "Melbourne", "Victoria"], ["au-brisbane", "Brisbane", "Queensland"],
      ["au-hobart", "Hobart", "Tasmania"]]],
    ["Canada", [["ca-toronto", "Toronto", "Ontario"], ["ca-perth", "Perth", "Ontario"],
      ["ca-halifax", "Halifax", "Nova Scotia"], ["ca-calgary", "Calgary", "Alberta"]]],
    ["Ireland", [["ie-dublin", "Dublin", "Leinster"], ["ie-cork", "Cork", "Munster"], ["ie-galway", "Galway", "Connacht"]]],
    ["United Kingdom", [["uk-york", "York", "England"], ["uk-perth", "Perth", "Scotland"],
      ["uk-bristol", "Bristol", "England"], ["uk-leeds", "Leeds", "England"], ["uk-cardiff", "Cardiff", "Wales"],
      ["uk-inverness", "Inverness", "Scotland"]]],
    ["United States", [["us-portland", "Portland", "Oregon"], ["us-austin", "Austin", "Texas"],
      ["us-denver", "Denver", "Colorado"], ["us-boston", "Boston", "Massachusetts"]]],
  ],
  // Old links used bare town names; "perth" predates the other Perths and still means Australia.
  aliases: { perth: "au-perth", york: "uk-york", sydney: "au-sydney", dublin: "ie-dublin" },
  region(code) {
    code = this.aliases[code] || code;
    for (const [country, regions] of this.countries) {
      for (const [c, town, area] of regions) if (c === code) return { code, town, area, country };
    }
    return null;
  },
};
