(function () {
  "use strict";
  GB.rand(); // the first draw of a seeded stream follows the seed closely; skip it

  // ---- The place index the "Where to?" lookup searches. -----------------------------------
  // type: City | Airport | Region | Station | Hotel | Neighbourhood. `short` names the results.
  const PLACES = [
    { id: "city:lisbon", name: "Lisbon, Portugal", sub: "Lisbon District · 2,418 properties", type: "City", short: "Lisbon", centre: "Baixa" },
    { id: "airport:LIS", name: "Lisbon Airport (LIS)", sub: "Lisbon, Portugal", type: "Airport", short: "Lisbon Airport (LIS)", centre: "the airport" },
    { id: "region:lisbon-coast", name: "Lisbon Coast hotels", sub: "Cascais, Estoril & Sintra, Portugal", type: "Region", short: "Lisbon Coast", centre: "Cascais" },
    { id: "station:lisboa-oriente", name: "Lisboa Oriente station", sub: "Parque das Nações, Lisbon, Portugal", type: "Station", short: "Lisboa Oriente station", centre: "the station" },
    { id: "city:lisbon-oh", name: "Lisbon, Ohio", sub: "Columbiana County, United States", type: "City", short: "Lisbon, Ohio", centre: "downtown" },
    { id: "city:lisbon-me", name: "Lisbon, Maine", sub: "Androscoggin County, United States", type: "City", short: "Lisbon, Maine", centre: "downtown" },
    { id: "hotel:lisbon-marriott", name: "Lisbon Marriott Hotel", sub: "Sete Rios, Lisbon, Portugal", type: "Hotel", short: "Lisbon Marriott Hotel", centre: "Sete Rios" },
    { id: "city:lisburn", name: "Lisburn, Northern Ireland", sub: "County Antrim, United Kingdom", type: "City", short: "Lisburn", centre: "the city centre" },
    { id: "area:alfama", name: "Alfama", sub: "Lisbon, Portugal", type: "Neighbourhood", short: "Alfama, Lisbon", centre: "Alfama" },
    { id: "area:belem", name: "Belém", sub: "Lisbon, Portugal", type: "Neighbourhood", short: "Belém, Lisbon", centre: "Belém" },
    { id: "city:porto", name: "Porto, Portugal", sub: "Norte · 1,904 properties", type: "City", short: "Porto", centre: "Ribeira" },
    { id: "airport:OPO", name: "Porto Airport (OPO)", sub: "Porto, Portugal", type: "Airport", short: "Porto Airport (OPO)", centre: "the airport" },
    { id: "city:faro", name: "Faro, Portugal", sub: "Algarve · 611 properties", type: "City", short: "Faro", centre: "the old town" },
    { id: "city:lagos", name: "Lagos, Portugal", sub: "Algarve · 804 properties", type: "City", short: "Lagos", centre: "the marina" },
    { id: "city:lagos-ng", name: "Lagos, Nigeria", sub: "Lagos State, Nigeria", type: "City", short: "Lagos, Nigeria", centre: "Victoria Island" },
    { id: "city:sintra", name: "Sintra, Portugal", sub: "Lisbon Coast · 388 properties", type: "City", short: "Sintra", centre: "the historic centre" },
    { id: "city:cascais", name: "Cascais, Portugal", sub: "Lisbon Coast · 512 properties", type: "City", short: "Cascais", centre: "the bay" },
    { id: "city:madrid", name: "Madrid, Spain", sub: "Community of Madrid · 3,120 properties", type: "City", short: "Madrid", centre: "Sol" },
    { id: "city:barcelona", name: "Barcelona, Spain", sub: "Catalonia · 2,877 properties", type: "City", short: "Barcelona", centre: "the Gothic Quarter" },
    { id: "city:seville", name: "Seville, Spain", sub: "Andalusia · 1,206 properties", type: "City", short: "Seville", centre: "Santa Cruz" },
    { id: "city:paris", name: "Paris, France", sub: "Île-de-France · 6,015 properties", type: "City", short: "Paris", centre: "Châtelet" },
    { id: "city:rome", name: "Rome, Italy", sub: "Lazio · 4,380 properties", type: "City", short: "Rome", centre: "Piazza Navona" },
    { id: "city:london", name: "London, United Kingdom", sub: "England · 5,602 properties", type: "City", short: "London", centre: "Covent Garden" },
    { id: "city:amsterdam", name: "Amsterdam, Netherlands", sub: "North Holland · 1,733 properties", type: "City", short: "Amsterdam", centre: "Dam Square" },
  ];
  const ALIASES = { "city:lisbon": "lisboa", "station:lisboa-oriente": "lisbon oriente gare", "city:seville": "sevilla", "area:belem": "belem" };

  // Stays for the places people search most; the others get generated names.
  const STAYS = {
    "city:lisbon": [
      ["Casa das Janelas com Vista", "Bairro Alto", 4], ["Hotel Avenida Palace", "Baixa", 5], ["Lisboa Pessoa Hotel", "Chiado", 4],
      ["Memmo Alfama", "Alfama", 4], ["Sunset Destination Hostel", "Cais do Sodré", 2], ["Dear Lisbon Charming House", "Príncipe Real", 3],
      ["Martinhal Chiado Family Suites", "Chiado", 5], ["The Independente Suites", "Bairro Alto", 3], ["Lisbon Serviced Apartments Baixa", "Baixa", 3],
    ],
    "airport:LIS": [
      ["TRYP Lisboa Aeroporto", "Olivais", 4], ["ibis Lisboa Aeroporto", "Encarnação", 2], ["Radisson Blu Lisbon Airport", "Olivais", 4],
      ["Holiday Inn Express Lisbon Airport", "Prior Velho", 3], ["Moxy Lisboa Oriente", "Parque das Nações", 3],
    ],
    "region:lisbon-coast": [
      ["Farol Hotel", "Cascais", 5], ["Casa Vela Guest House", "Cascais", 4], ["Tivoli Palácio de Seteais", "Sintra", 5],
      ["Sintra Boutique Hotel", "Sintra", 3], ["Hotel Inglaterra Estoril", "Estoril", 4], ["Ericeira Surf House", "Ericeira", 2],
    ],
  };
  const GENERIC = [["Central Hotel", 3], ["Grand Palace", 5], ["Old Town Apartments", 3], ["Riverside Suites", 4], ["City Hostel", 2], ["Boutique Rooms", 3]];
  const GRADIENTS = [["#f4b183", "#c0504d"], ["#9fd3c7", "#385170"], ["#ffd57e", "#e28f2d"], ["#b8c6ff", "#5461c8"], ["#c3e6cb", "#2f7d4f"], ["#f7c5d9", "#b14d7c"], ["#d5c4a1", "#7d6b4e"], ["#a7d8f0", "#2c6e99"]];
  const PROVIDERS = ["Booking partner", "HotelsNow", "Direct from hotel", "StayFinder", "TripDeals"];

  // Everything seeded is drawn here, once, in a fixed order, whatever the user does later.
  const popularity = {};
  // Big cities and their airports are searched most, so they usually lead the list.
  const MAJOR = new Set(["city:lisbon", "airport:LIS", "city:porto", "airport:OPO", "city:madrid", "city:barcelona", "city:paris", "city:rome", "city:london", "city:amsterdam"]);
  for (const p of PLACES) popularity[p.id] = GB.rand() + (MAJOR.has(p.id) ? 0.6 : 0);
  const RESULTS = {};
  for (const p of PLACES) {
    const list = STAYS[p.id] || GENERIC.map(([n, s]) => [`${p.short.split(",")[0]} ${n}`, p.centre, s]);
    const used = new Set();
    const stays = list.map(([name, area, stars], i) => {
      let nightly;
      do { nightly = GB.range(48, 260); } while (used.has(nightly));
      used.add(nightly);
      const g = GRADIENTS[GB.int(GRADIENTS.length)];
      return {
        key: `${p.id}#${i}`, name, area, stars, nightly,
        was: GB.rand() < 0.35 ? 1.12 + GB.rand() * 0.25 : 0,
        score: (GB.range(72, 96) / 10).toFixed(1),
        reviews: GB.range(40, 4200),
        km: (GB.range(2, 90) / 10).toFixed(1),
        freeCancel: GB.rand() < 0.6,
        breakfast: GB.rand() < 0.4,
        provider: GB.pick(PROVIDERS),
        badge: GB.rand() < 0.2 ? GB.pick(["Great value", "Popular", "New on Roamly"]) : "",
        c1: g[0], c2: g[1],
      };
    });
    RESULTS[p.id] = GB.shuffle(stays); // "Our top picks" order
  }

  const byId = Object.fromEntries(PLACES.map((p) => [p.id, p]));
  const norm = (s) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  const words = (s) => norm(s).split(/[^a-z0-9]+/).filter(Boolean);
  const money = (n) => "£" + Math.round(n).toLocaleString("en-GB");
  const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));

  // The "API": name matches first, then matches on the subtitle; within each, by popularity.
  function lookup(query) {
    const q = words(query);
    if (!q.length) return [];
    const hits = [];
    for (const p of PLACES) {
      const nameWords = words(p.name + " " + (ALIASES[p.id] || ""));
      const allWords = nameWords.concat(words(p.sub));
      const fits = (pool) => q.every((w) => pool.some((t) => t.startsWith(w)));
      if (fits(nameWords)) hits.push({ p, tier: 0 });
      else if (fits(allWords)) hits.push({ p, tier: 1 });
    }
    hits.sort((a, b) => a.tier - b.tier || popularity[b.p.id] - popularity[a.p.id]);
    return hits.slice(0, 8).map((h) => h.p);
  }
  function fakeFetch(query) {
    return new Promise((resolve) => setTimeout(() => resolve(lookup(query)), 140));
  }

  // ---- Combobox --------------------------------------------------------------------------
  const input = document.getElementById("dest");
  const listbox = document.getElementById("dest-listbox");
  const spinner = document.getElementById("dest-spinner");
  const clearBtn = document.getElementById("dest-clear");
  const destError = document.getElementById("dest-error");
  let options = [];      // places currently shown
  let active = -1;       // highlighted index
  let chosen = null;     // the place picked from the list
  let debounce = 0;
  let requestSeq = 0;

  const ICONS = {
    City: '<path d="M4 21V9l6-4v16M10 21V3l10 5v13M4 21h16"/>',
    Airport: '<path d="M2 16l20-6-3-2-6 2-5-5H6l3 6-5 2-2-1z"/>',
    Region: '<path d="M3 20l6-12 4 7 3-4 5 9z"/>',
    Station: '<rect x="6" y="3" width="12" height="14" rx="3"/><path d="M8 21l2-4M16 21l-2-4M6 11h12"/>',
    Hotel: '<path d="M3 20V6M3 14h18v6M21 20v-8a3 3 0 0 0-3-3h-7v5"/><circle cx="7" cy="11" r="2"/>',
    Neighbourhood: '<path d="M12 21s-7-6.2-7-11.5A7 7 0 0 1 19 9.5C19 14.8 12 21 12 21z"/>',
  };

  function boldPrefix(text, query) {
    const q = words(query);
    return text.split(/(\s+|,)/).map((part) => {
      const n = norm(part);
      const w = q.find((x) => n.startsWith(x));
      return w && part.trim() ? `<b>${esc(part.slice(0, w.length))}</b>${esc(part.slice(w.length))}` : esc(part);
    }).join("");
  }

  function openList(places, query) {
    options = places;
    listbox.textContent = "";
    if (!places.length) {
      listbox.innerHTML = '<li class="listbox__empty" role="presentation">No destinations match. Check the spelling or try a nearby city.</li>';
      active = -1;
    } else {
      places.forEach((p, i) => {
        const li = document.createElement("li");
        li.className = "option";
        li.id = GB.uid("opt");
        li.setAttribute("role", "option");
        li.dataset.place = p.id;
        li.innerHTML =
          `<span class="option__icon" aria-hidden="true"><svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2">${ICONS[p.type]}</svg></span>` +
          `<span class="option__name">${boldPrefix(p.name, query)}</span>` +
          `<span class="option__sub">${esc(p.sub)}</span>` +
          `<span class="option__type">${p.type}</span>`;
        li.addEventListener("mousedown", (e) => e.preventDefault()); // keep focus in the field
        li.addEventListener("mousemove", () => { if (active !== i) highlight(i); });
        li.addEventListener("click", () => choose(i));
        listbox.appendChild(li);
      });
      highlight(0);
    }
    listbox.hidden = false;
    input.setAttribute("aria-expanded", "true");
  }
  function closeList() {
    listbox.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }
  function highlight(i) {
    active = i;
    [...listbox.querySelectorAll('[role="option"]')].forEach((li, j) => {
      li.setAttribute("aria-selected", String(j === i));
      if (j === i) { input.setAttribute("aria-activedescendant", li.id); li.scrollIntoView({ block: "nearest" }); }
    });
  }
  function choose(i) {
    const p = options[i];
    if (!p) return;
    chosen = p;
    input.value = p.name;
    clearBtn.hidden = false;
    destError.textContent = "";
    closeList();
    GB.set({ destination: p.id });
  }

  input.addEventListener("input", () => {
    chosen = null;
    destError.textContent = "";
    clearBtn.hidden = !input.value;
    requestSuggestions();
  });
  // Coming back to a half-typed destination shows its suggestions again.
  input.addEventListener("focus", () => { if (!chosen && input.value.trim()) requestSuggestions(); });
  function requestSuggestions() {
    clearTimeout(debounce);
    const seq = ++requestSeq;
    if (!input.value.trim()) { spinner.hidden = true; closeList(); return; }
    // Stale suggestions stay up while the next lookup is pending, as on most sites.
    debounce = setTimeout(() => {
      spinner.hidden = false;
      const query = input.value;
      fakeFetch(query).then((places) => {
        if (seq !== requestSeq) return; // an older query answered late
        spinner.hidden = true;
        if (document.activeElement === input) openList(places, query);
      });
    }, 260);
  }
  input.addEventListener("keydown", (e) => {
    const open = !listbox.hidden && options.length;
    if (e.key === "ArrowDown" && open) { e.preventDefault(); highlight((active + 1) % options.length); }
    else if (e.key === "ArrowUp" && open) { e.preventDefault(); highlight((active - 1 + options.length) % options.length); }
    else if (e.key === "Enter" && open && active >= 0) { e.preventDefault(); choose(active); }
    else if (e.key === "Escape" && !listbox.hidden) { e.preventDefault(); closeList(); }
  });
  input.addEventListener("blur", () => { clearTimeout(debounce); requestSeq++; spinner.hidden = true; closeList(); });
  clearBtn.addEventListener("click", () => {
    input.value = ""; chosen = null; clearBtn.hidden = true; closeList(); input.focus();
  });

  // ---- Dates and guests ------------------------------------------------------------------
  const checkin = document.getElementById("checkin");
  const checkout = document.getElementById("checkout");
  const guests = document.getElementById("guests");
  const iso = (d) => d.toISOString().slice(0, 10);
  const today = new Date(); today.setUTCHours(12, 0, 0, 0);
  const inDays = (n) => new Date(today.getTime() + n * 864e5);
  checkin.value = iso(inDays(21));
  checkout.value = iso(inDays(24));
  checkin.min = checkout.min = iso(today);
  checkin.addEventListener("change", () => {
    if (checkout.value <= checkin.value) checkout.value = iso(new Date(new Date(checkin.value + "T12:00:00Z").getTime() + 3 * 864e5));
  });
  guests.addEventListener("change", () => GB.set({ guests: Number(guests.value) }));
  function nights() {
    const n = Math.round((new Date(checkout.value + "T12:00:00Z") - new Date(checkin.value + "T12:00:00Z")) / 864e5);
    return n > 0 ? n : 1;
  }
  const fmtDate = (v) => new Date(v + "T12:00:00Z").toLocaleDateString("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });

  // ---- Search and results ----------------------------------------------------------------
  const form = document.getElementById("search-form");
  const hero = document.getElementById("hero");
  const home = document.getElementById("home");
  const results = document.getElementById("results");
  const list = document.getElementById("results-list");
  const sortSel = document.getElementById("sort");
  const status = document.getElementById("sr-status");
  let current = null; // { place, guests, nights, stays }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!chosen) {
      destError.textContent = input.value.trim() ? "Choose a destination from the list." : "Enter a destination to start searching.";
      input.focus();
      return;
    }
    const g = Number(guests.value);
    const n = nights();
    GB.set({ search: { destination: chosen.id, guests: g } });
    const stays = RESULTS[chosen.id].map((s) => {
      const total = Math.round(s.nightly * n * (1 + 0.18 * (g - 1)));
      return { ...s, total, wasTotal: s.was ? Math.round(total * s.was) : 0 };
    });
    const byPrice = stays.slice().sort((a, b) => a.total - b.total);
    stays.forEach((s) => { s.priceRank = byPrice.indexOf(s) + 1; });
    current = { place: chosen, guests: g, nights: n, stays, dates: `${fmtDate(checkin.value)} – ${fmtDate(checkout.value)}` };
    sortSel.value = "top";
    hero.classList.add("compact");
    home.hidden = true;
    results.hidden = false;
    renderResults();
    status.textContent = `${stays.length} properties found in ${chosen.short}.`;
    window.scrollTo(0, 0);
  });

  function sortedStays() {
    const s = current.stays.slice();
    const by = sortSel.value;
    if (by === "price") s.sort((a, b) => a.total - b.total);
    else if (by === "price-desc") s.sort((a, b) => b.total - a.total);
    else if (by === "rating") s.sort((a, b) => b.score - a.score || b.reviews - a.reviews);
    else if (by === "distance") s.sort((a, b) => a.km - b.km);
    return s;
  }

  function renderResults() {
    const { place, guests: g, nights: n } = current;
    document.getElementById("results-title").textContent = `${place.short}: ${current.stays.length} properties found`;
    document.getElementById("results-meta").textContent = `${current.dates} · ${n} night${n === 1 ? "" : "s"} · ${g} guest${g === 1 ? "" : "s"}`;
    list.textContent = "";
    for (const s of sortedStays()) {
      const card = document.createElement("article");
      card.className = "stay";
      const nameId = GB.uid("stay");
      card.setAttribute("aria-labelledby", nameId);
      const perks = [s.freeCancel ? "Free cancellation" : "", s.breakfast ? "Breakfast included" : ""].filter(Boolean);
      const word = s.score >= 9 ? "Superb" : s.score >= 8.5 ? "Excellent" : s.score >= 8 ? "Very good" : "Good";
      card.innerHTML =
        `<div class="stay__img" style="--c1:${s.c1};--c2:${s.c2}">${s.badge ? `<span class="stay__badge">${s.badge}</span>` : ""}</div>` +
        `<div><h3 class="stay__name" id="${nameId}"></h3>` +
        `<div class="stay__stars" aria-label="${s.stars} stars">${"★".repeat(s.stars)}</div>` +
        `<p class="stay__area"></p>` +
        `<div class="stay__rating"><span class="score">${s.score}</span><span><strong>${word}</strong> · ${s.reviews.toLocaleString("en-GB")} reviews</span></div>` +
        `<ul class="stay__perks">${perks.map((p) => `<li>✓ ${p}</li>`).join("")}</ul></div>` +
        `<div class="stay__deal"><span class="stay__from">${s.provider}</span>` +
        (s.wasTotal ? `<span class="stay__was"><span class="visually-hidden">Was </span>${money(s.wasTotal)}</span>` : "") +
        `<span class="stay__price">${money(s.total)}</span>` +
        `<span class="stay__for">${n} night${n === 1 ? "" : "s"}, ${g} guest${g === 1 ? "" : "s"} · incl. taxes</span>` +
        `<button type="button" class="btn btn--deal">View deal</button></div>`;
      card.querySelector(".stay__name").textContent = s.name;
      card.querySelector(".stay__area").textContent = `${s.area} · ${s.km} km from ${place.centre}`;
      card.querySelector(".btn--deal").addEventListener("click", () => openDeal(s));
      list.appendChild(card);
    }
  }
  sortSel.addEventListener("change", () => { if (current) renderResults(); });

  // ---- Deal dialog -----------------------------------------------------------------------
  const dialog = document.getElementById("deal");
  const scrim = document.getElementById("scrim");
  let opener = null;
  function openDeal(s) {
    GB.push("deals", { destination: current.place.id, price_rank: s.priceRank });
    opener = document.activeElement;
    document.getElementById("deal-title").textContent = s.name;
    document.getElementById("deal-where").textContent = `${s.area}, ${current.place.short} · ${current.dates}`;
    document.getElementById("deal-price").textContent = money(s.total);
    document.getElementById("deal-for").textContent = `for ${current.nights} night${current.nights === 1 ? "" : "s"}, ${current.guests} guest${current.guests === 1 ? "" : "s"}`;
    document.getElementById("deal-from").textContent = `Offered by ${s.provider}. You'll finish booking on their site.`;
    dialog.hidden = scrim.hidden = false;
    document.getElementById("deal-go").focus();
  }
  function closeDeal() {
    dialog.hidden = scrim.hidden = true;
    if (opener) opener.focus();
  }
  document.getElementById("deal-close").addEventListener("click", closeDeal);
  scrim.addEventListener("click", closeDeal);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !dialog.hidden) closeDeal(); });
  document.getElementById("deal-go").addEventListener("click", () => {
    document.getElementById("deal-from").textContent = "Opening the provider's site… (pop-ups are blocked in this preview)";
  });
})();
