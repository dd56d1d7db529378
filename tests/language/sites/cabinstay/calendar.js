(function () {
  "use strict";
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
                  "September", "October", "November", "December"];
  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const pad = (n) => String(n).padStart(2, "0");
  const iso = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const longLabel = (d) => `${DAYS[d.getDay()]} ${d.getDate()} ${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
  const shortLabel = (d) => `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`;

  // The site's notion of "today" is fixed (never the real clock): a seeded day in March 2031.
  const TODAY = new Date(2031, 2, GB.range(3, 24));
  const LOCATIONS = ["Kielder Forest", "Glen Affric", "Brecon Beacons", "Lake District", "Dartmoor"];
  // Fully booked nights: a few seeded days of April (never the 14th)...
  const aprilDays = [];
  for (let i = 1; i <= 30; i++) if (i !== 14) aprilDays.push(i);
  const FULL = new Set(GB.shuffle(aprilDays).slice(0, GB.range(3, 5)).map((d) => iso(new Date(2031, 3, d))));
  // And a few of the rest of March (never the 14th, which stays a wrong but bookable day).
  for (let i = TODAY.getDate() + 1; i <= 31; i++) if (i !== 14 && GB.rand() < 0.15) FULL.add(iso(new Date(2031, 2, i)));

  const site = document.getElementById("site");
  for (const name of GB.shuffle(LOCATIONS)) site.add(new Option(name, name));

  const input = document.getElementById("checkin");
  const toggle = document.getElementById("cal-toggle");
  const cal = document.getElementById("calendar");
  const heading = document.getElementById("cal-heading");
  const body = document.getElementById("cal-body");
  const prev = document.getElementById("cal-prev");
  const next = document.getElementById("cal-next");
  const error = document.getElementById("checkin-error");

  let view = new Date(TODAY.getFullYear(), TODAY.getMonth(), 1);
  let selected = null;

  function render() {
    heading.textContent = `${MONTHS[view.getMonth()]} ${view.getFullYear()}`;
    prev.disabled = view.getFullYear() === TODAY.getFullYear() && view.getMonth() === TODAY.getMonth();
    body.textContent = "";
    const first = new Date(view.getFullYear(), view.getMonth(), 1);
    const lead = (first.getDay() + 6) % 7; // Monday-first weeks
    const count = new Date(view.getFullYear(), view.getMonth() + 1, 0).getDate();
    let row = document.createElement("tr");
    for (let i = 0; i < lead; i++) row.appendChild(document.createElement("td"));
    for (let day = 1; day <= count; day++) {
      const date = new Date(view.getFullYear(), view.getMonth(), day);
      const td = document.createElement("td");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "day";
      b.textContent = String(day);
      b.dataset.date = iso(date);
      const past = date < TODAY;
      const full = FULL.has(iso(date));
      b.setAttribute("aria-label", longLabel(date) + (full && !past ? ", fully booked" : ""));
      if (past || full) b.disabled = true;
      if (full) b.classList.add("is-full");
      if (iso(date) === iso(TODAY)) b.setAttribute("aria-current", "date");
      b.setAttribute("aria-pressed", String(selected !== null && iso(selected) === iso(date)));
      b.tabIndex = -1;
      b.addEventListener("click", () => choose(date));
      td.appendChild(b);
      row.appendChild(td);
      if ((lead + day) % 7 === 0) { body.appendChild(row); row = document.createElement("tr"); }
    }
    if (row.children.length) {
      while (row.children.length < 7) row.appendChild(document.createElement("td"));
      body.appendChild(row);
    }
    const focusable = body.querySelector(".day[aria-pressed=true]") || body.querySelector(".day:not(:disabled)");
    if (focusable) focusable.tabIndex = 0;
  }

  function open() {
    if (selected) view = new Date(selected.getFullYear(), selected.getMonth(), 1);
    render();
    cal.hidden = false;
    toggle.setAttribute("aria-expanded", "true");
  }
  function close(refocus) {
    cal.hidden = true;
    toggle.setAttribute("aria-expanded", "false");
    if (refocus) toggle.focus();
  }
  function choose(date) {
    selected = date;
    input.value = shortLabel(date);
    error.textContent = "";
    close(true);
  }

  toggle.addEventListener("click", () => (cal.hidden ? open() : close(false)));
  input.addEventListener("click", () => { if (cal.hidden) open(); });
  prev.addEventListener("click", () => { view = new Date(view.getFullYear(), view.getMonth() - 1, 1); render(); });
  next.addEventListener("click", () => { view = new Date(view.getFullYear(), view.getMonth() + 1, 1); render(); });
  document.getElementById("cal-close").addEventListener("click", () => close(true));
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !cal.hidden) close(true); });
  document.addEventListener("mousedown", (e) => {
    if (!cal.hidden && !cal.contains(e.target) && e.target !== toggle && !toggle.contains(e.target) && e.target !== input) close(false);
  });

  const results = document.getElementById("results");
  const CABINS = ["Heron Cabin", "Larch Lodge", "The Bothy", "Owl's Rest", "Fern Hollow", "Birch Cabin"];
  document.getElementById("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (!selected) {
      error.textContent = "Choose a check-in date";
      return;
    }
    const nights = Number(document.getElementById("nights").value);
    const guests = Number(document.getElementById("guests").value);
    GB.set({ search: { checkin: iso(selected), nights, guests } });
    const cabins = CABINS.slice(0, 3);
    results.innerHTML = "";
    const h = document.createElement("h2");
    h.textContent = `${cabins.length} cabins available in ${site.value} from ${longLabel(selected)}`;
    const list = document.createElement("div");
    list.className = "result-list";
    cabins.forEach((name, i) => {
      const card = document.createElement("article");
      card.className = "result";
      card.innerHTML = `<h3></h3><p>Sleeps ${2 + i} · £${(120 + 15 * i) * nights} for ${nights} night${nights > 1 ? "s" : ""}</p>`;
      card.querySelector("h3").textContent = name;
      list.appendChild(card);
    });
    results.append(h, list);
  });
})();
