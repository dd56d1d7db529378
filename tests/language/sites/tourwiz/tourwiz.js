(function () {
  "use strict";

  // ---- data ---------------------------------------------------------------------------------
  const TODAY = new Date(2026, 5, 8); // the shop's "today": departures are bookable from here
  const LAST_MONTH = new Date(2026, 11, 1);
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December"];
  const MON_SHORT = MONTHS.map((m) => m.slice(0, 3));
  const DOW = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

  const TOURS = [
    { key: "castle-walk", name: "Castle Hill Walking Tour", hours: "2.5 h", group: "Small group · max 12",
      max: 12, base: 26, per: "person", hue: 24,
      desc: "Climb the castle hill with a local historian: cathedral, royal courtyard and the dragon's den." },
    { key: "castle-private", name: "Castle Hill Walking Tour (Private)", hours: "2.5 h", group: "Private · up to 6",
      max: 6, base: 139, per: "group", hue: 280,
      desc: "The same route as our classic hill walk, just you and your party, at your own pace." },
    { key: "castle-night", name: "Castle Hill Night Tour", hours: "2 h", group: "Small group · max 14",
      max: 14, base: 31, per: "person", hue: 230,
      desc: "Lantern-lit walk around the hill after dark, with legends, ghosts and a glass of mead." },
    { key: "oldtown-walk", name: "Old Town Walking Tour", hours: "2 h", group: "Small group · max 15",
      max: 15, base: 19, per: "person", hue: 45,
      desc: "Market square, cloth hall, the trumpeter's tower and the university's hidden courtyards." },
    { key: "river-food", name: "Riverside Food Tour", hours: "3.5 h", group: "Small group · max 10",
      max: 10, base: 54, per: "person", hue: 140,
      desc: "Seven tastings along the river: pierogi, obwarzanek, craft beer and a sweet finale." },
    { key: "river-cruise", name: "Vistula Sunset Cruise", hours: "1.5 h", group: "Boat · max 40",
      max: 40, base: 22, per: "person", hue: 200,
      desc: "Sail past the castle walls as the sun sets. Drinks available on board." },
  ];
  const BADGES = ["Bestseller", "Likely to sell out", "New", "Top rated"];

  const tours = GB.shuffle(TOURS).map((t) => ({
    ...t,
    price: t.base + GB.int(7),
    rating: (4.3 + GB.int(7) / 10).toFixed(1),
    reviews: 80 + GB.int(2400),
    badge: GB.rand() < 0.45 ? GB.pick(BADGES) : null,
  }));

  // a handful of sold-out departures (never 14 July, the date people ask about most in support)
  const soldOut = new Set();
  for (const m of [5, 6, 7]) {
    const n = 3 + GB.int(3);
    for (let i = 0; i < n; i++) {
      const d = 1 + GB.int(28);
      const iso = isoOf(new Date(2026, m, d));
      if (iso !== "2026-07-14") soldOut.add(iso);
    }
  }
  const fewLeft = new Set();
  for (let i = 0; i < 6; i++) fewLeft.add(isoOf(new Date(2026, 5 + GB.int(2), 1 + GB.int(30))));

  // ---- state ---------------------------------------------------------------------------------
  const state = {
    step: 1,
    tourKey: null,
    date: null,        // Date
    guests: 1,
    name: "",
    email: "",
    country: null,
    calOpen: false,
    calMonth: new Date(TODAY.getFullYear(), TODAY.getMonth(), 1),
    done: null,
  };
  let countryBox = null;

  const $ = (sel, root = document) => root.querySelector(sel);
  const panel = $("[data-panel]");
  const progress = $("[data-progress]");
  const summary = $("[data-summary]");

  function isoOf(d) {
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  }
  function prettyDate(d) {
    return `${DOW[d.getDay()]}, ${d.getDate()} ${MON_SHORT[d.getMonth()]} ${d.getFullYear()}`;
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  }
  function tour() { return tours.find((t) => t.key === state.tourKey) || null; }
  function total() {
    const t = tour();
    if (!t) return 0;
    return t.per === "group" ? t.price : t.price * state.guests;
  }

  // ---- progress header --------------------------------------------------------------------------
  function renderProgress() {
    const steps = ["Tour", "Date & guests", "Details"];
    progress.innerHTML = '<ol class="wiz-steps">' + steps.map((label, i) => {
      const n = i + 1;
      const cls = state.done ? "is-done" : n < state.step ? "is-done" : n === state.step ? "is-active" : "";
      const sep = n < steps.length ? '<li class="wiz-steps__sep" aria-hidden="true">·</li>' : "";
      return `<li class="wiz-steps__item ${cls}" data-goto="${n}"><span class="wiz-steps__num">${n}</span>` +
        `<span class="wiz-steps__label">${label}</span></li>${sep}`;
    }).join("") + "</ol>";
  }
  progress.addEventListener("click", (e) => {
    const li = e.target.closest(".wiz-steps__item.is-done");
    if (!li || state.done) return;
    go(Number(li.dataset.goto));
  });

  // ---- summary --------------------------------------------------------------------------------
  function renderSummary() {
    const t = tour();
    if (!t) {
      summary.innerHTML = `<div class="sum-card"><div class="sum-card__title">Your booking</div>
        <p class="muted">Pick a tour to see prices.</p>
        <ul class="perks"><li>Free cancellation up to 24 h before</li><li>Reserve now, pay on the day</li><li>Licensed local guides</li></ul></div>`;
      return;
    }
    summary.innerHTML = `<div class="sum-card"><div class="sum-card__title">Your booking</div>
      <div class="sum-row"><span>Tour</span><strong>${esc(t.name)}</strong></div>
      <div class="sum-row"><span>Date</span><strong>${state.date ? prettyDate(state.date) : "—"}</strong></div>
      <div class="sum-row"><span>Guests</span><strong>${state.step >= 2 ? state.guests : "—"}</strong></div>
      <div class="sum-total"><span>Total</span><strong>€${total()}</strong></div>
      <p class="muted small">Pay on the day. Prices include VAT.</p></div>`;
  }

  // ---- step 1 ----------------------------------------------------------------------------------
  function renderStep1() {
    panel.innerHTML = `
      <div class="panel-head"><h2>Choose your tour</h2><p class="muted">${tours.length} experiences in Kraków</p></div>
      <div class="tour-grid">
        ${tours.map((t) => `
        <article class="tour-card${t.key === state.tourKey ? " is-selected" : ""}" data-key="${t.key}">
          <div class="tour-card__img" style="background:linear-gradient(135deg,hsl(${t.hue} 60% 62%),hsl(${(t.hue + 40) % 360} 55% 38%))">
            ${t.badge ? `<span class="tour-card__badge">${t.badge}</span>` : ""}
          </div>
          <div class="tour-card__body">
            <h3 class="tour-card__title">${esc(t.name)}</h3>
            <div class="tour-card__meta">${t.hours} · ${t.group}</div>
            <div class="tour-card__rating"><span class="stars">★</span> ${t.rating} <span class="muted">(${t.reviews.toLocaleString("en")})</span></div>
            <p class="tour-card__desc">${esc(t.desc)}</p>
            <div class="tour-card__foot">
              <div class="price">from <b>€${t.price}</b> <span class="muted">/ ${t.per}</span></div>
              <button type="button" class="btn btn-outline tour-card__select">${t.key === state.tourKey ? "Selected ✓" : "Select"}</button>
            </div>
          </div>
        </article>`).join("")}
      </div>
      <div class="wiz-footer">
        <span class="wiz-error" data-error></span>
        <button type="button" class="btn btn-primary wiz-next" data-next>Continue</button>
      </div>`;
  }

  // ---- step 2 ----------------------------------------------------------------------------------
  function calendarHtml() {
    const m = state.calMonth;
    const y = m.getFullYear(), mo = m.getMonth();
    const first = new Date(y, mo, 1);
    const lead = (first.getDay() + 6) % 7; // Monday first
    const days = new Date(y, mo + 1, 0).getDate();
    const cells = [];
    for (let i = lead; i > 0; i--) cells.push({ d: new Date(y, mo, 1 - i), out: true });
    for (let d = 1; d <= days; d++) cells.push({ d: new Date(y, mo, d), out: false });
    for (let k = 1; cells.length % 7; k++) cells.push({ d: new Date(y, mo, days + k), out: true });
    const rows = [];
    for (let i = 0; i < cells.length; i += 7) rows.push(cells.slice(i, i + 7));
    const selIso = state.date ? isoOf(state.date) : null;
    const canPrev = m > new Date(TODAY.getFullYear(), TODAY.getMonth(), 1);
    const canNext = m < LAST_MONTH;
    return `
      <div class="cal-head">
        <button type="button" class="cal-nav cal-nav--prev" aria-label="Previous month" ${canPrev ? "" : "disabled"}>‹</button>
        <div class="cal-title">${MONTHS[mo]} ${y}</div>
        <button type="button" class="cal-nav cal-nav--next" aria-label="Next month" ${canNext ? "" : "disabled"}>›</button>
      </div>
      <table class="cal-grid">
        <thead><tr>${["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"].map((d) => `<th>${d}</th>`).join("")}</tr></thead>
        <tbody>${rows.map((r) => "<tr>" + r.map((c) => {
          const iso = isoOf(c.d);
          if (c.out) return `<td class="cal-cell is-outside"><div class="cal-day">${c.d.getDate()}</div></td>`;
          const past = c.d < TODAY;
          const monday = c.d.getDay() === 1;
          const so = soldOut.has(iso);
          const cls = ["cal-cell"];
          if (past || monday) cls.push("is-disabled");
          else if (so) cls.push("is-soldout");
          else if (fewLeft.has(iso)) cls.push("is-few");
          if (iso === selIso) cls.push("is-selected");
          const title = past ? "" : monday ? ' title="No departures on Mondays"' : so ? ' title="Sold out"' : "";
          return `<td class="${cls.join(" ")}" data-date="${iso}"${title}><div class="cal-day">${c.d.getDate()}</div></td>`;
        }).join("") + "</tr>").join("")}</tbody>
      </table>
      <div class="cal-legend"><span class="lg lg--few"></span> Few spots left <span class="lg lg--so"></span> Sold out</div>`;
  }

  function renderStep2() {
    const t = tour();
    panel.innerHTML = `
      <div class="panel-head"><h2>Date &amp; guests</h2><p class="muted">${esc(t.name)} · ${t.hours}</p></div>
      <div class="form-grid">
        <div class="field date-field">
          <div class="field__label">Date</div>
          <div class="date-input">
            <input type="text" class="input date-input__control" readonly placeholder="Select a date" value="${state.date ? prettyDate(state.date) : ""}">
            <span class="date-input__icon" aria-hidden="true">▦</span>
          </div>
          <div class="cal-popover" data-cal ${state.calOpen ? "" : "hidden"}></div>
          <div class="field__hint">Departures daily at 10:00 and 14:00 except Mondays.</div>
        </div>
        <div class="field guests-field">
          <div class="field__label">Guests</div>
          <div class="guest-counter">
            <button type="button" class="gc-btn gc-btn--minus" ${state.guests <= 1 ? "disabled" : ""}>−</button>
            <span class="gc-value">${state.guests}</span>
            <button type="button" class="gc-btn gc-btn--plus" ${state.guests >= t.max ? "disabled" : ""}>+</button>
          </div>
          <div class="field__hint">Adults and children over 6. Max ${t.max} per booking.</div>
        </div>
      </div>
      <div class="wiz-footer">
        <button type="button" class="btn btn-link" data-back>‹ Back</button>
        <span class="wiz-error" data-error></span>
        <button type="button" class="btn btn-primary wiz-next" data-next>Continue</button>
      </div>`;
    if (state.calOpen) $("[data-cal]", panel).innerHTML = calendarHtml();
  }

  function openCal(open) {
    state.calOpen = open;
    const pop = $("[data-cal]", panel);
    if (!pop) return;
    if (open) { pop.innerHTML = calendarHtml(); pop.hidden = false; } else { pop.hidden = true; }
  }

  // ---- step 3 ----------------------------------------------------------------------------------
  function renderStep3() {
    panel.innerHTML = `
      <div class="panel-head"><h2>Lead traveller</h2><p class="muted">We'll send the tickets and meeting point to this person.</p></div>
      <form class="details-form" novalidate autocomplete="off" onsubmit="return false">
        <div class="form-row">
          <label class="field__label">Full name</label>
          <input class="input" type="text" name="fullname" placeholder="e.g. Alex Morgan" value="${esc(state.name)}">
          <div class="field__err" data-err="name"></div>
        </div>
        <div class="form-row">
          <label class="field__label">Email</label>
          <input class="input" type="email" name="email" placeholder="you@example.com" value="${esc(state.email)}">
          <div class="field__err" data-err="email"></div>
        </div>
        <div class="form-row">
          <label class="field__label">Country of residence</label>
          <div class="cbx"><input class="input cbx-input" type="text" placeholder="Start typing…"><span class="cbx-caret" aria-hidden="true">▾</span></div>
          <div class="field__err" data-err="country"></div>
        </div>
        <p class="muted small">By booking you agree to the supplier's cancellation policy.</p>
      </form>
      <div class="wiz-footer">
        <button type="button" class="btn btn-link" data-back>‹ Back</button>
        <span class="wiz-error" data-error></span>
        <button type="button" class="btn btn-primary btn-book" data-book>Book now</button>
      </div>`;
    const inp = $(".cbx-input", panel);
    countryBox = createCombobox(inp, {
      options: window.TW_COUNTRIES,
      onChange: (v) => { state.country = v; $('[data-err="country"]', panel).textContent = ""; },
    });
    if (state.country) countryBox.set(state.country);
  }

  function renderDone() {
    const b = state.done;
    panel.innerHTML = `
      <div class="done">
        <div class="done__icon">✓</div>
        <h2>Booking confirmed</h2>
        <p>Reference <strong>${b.ref}</strong>. A confirmation is on its way to ${esc(b.email)}.</p>
        <div class="done__lines">
          <div>${esc(b.tour)}</div><div>${prettyDate(state.date)} · ${b.guests} guest${b.guests === 1 ? "" : "s"}</div>
          <div>Lead traveller: ${esc(b.name)} (${esc(b.country)})</div>
        </div>
      </div>`;
  }

  // ---- navigation ------------------------------------------------------------------------------
  function go(step) {
    if (countryBox) { countryBox.destroy(); countryBox = null; }
    state.step = step;
    state.calOpen = false;
    render();
    window.scrollTo(0, 0);
  }

  function render() {
    renderProgress();
    if (state.done) renderDone();
    else if (state.step === 1) renderStep1();
    else if (state.step === 2) renderStep2();
    else renderStep3();
    renderSummary();
  }

  function showError(msg) {
    const el = $("[data-error]", panel);
    if (el) el.textContent = msg;
  }

  // ---- events (delegated) ------------------------------------------------------------------------
  panel.addEventListener("click", (e) => {
    const t = e.target;

    // step 1
    const card = t.closest(".tour-card");
    if (card && state.step === 1) {
      state.tourKey = card.dataset.key;
      const tt = tour();
      if (state.guests > tt.max) state.guests = tt.max;
      panel.querySelectorAll(".tour-card").forEach((c) => {
        const on = c.dataset.key === state.tourKey;
        c.classList.toggle("is-selected", on);
        c.querySelector(".tour-card__select").textContent = on ? "Selected ✓" : "Select";
      });
      showError("");
      renderSummary();
      return;
    }

    if (t.closest("[data-back]")) { go(state.step - 1); return; }

    if (t.closest("[data-next]")) {
      if (state.step === 1) {
        if (!state.tourKey) { showError("Please choose a tour first."); return; }
        GB.set({ "draft.tour": tour().name });
        go(2);
      } else if (state.step === 2) {
        if (!state.date) { showError("Please pick a date."); return; }
        GB.set({ "draft.date": isoOf(state.date), "draft.guests": state.guests });
        go(3);
      }
      return;
    }

    // step 2: date field & calendar
    if (t.closest(".date-input")) { openCal(!state.calOpen); return; }
    const nav = t.closest(".cal-nav");
    if (nav && !nav.disabled) {
      const m = state.calMonth;
      state.calMonth = new Date(m.getFullYear(), m.getMonth() + (nav.classList.contains("cal-nav--next") ? 1 : -1), 1);
      openCal(true);
      return;
    }
    const cell = t.closest("td.cal-cell");
    if (cell) {
      if (cell.classList.contains("is-outside") || cell.classList.contains("is-disabled") ||
          cell.classList.contains("is-soldout")) return;
      const [y, mo, d] = cell.dataset.date.split("-").map(Number);
      state.date = new Date(y, mo - 1, d);
      $(".date-input__control", panel).value = prettyDate(state.date);
      openCal(false);
      showError("");
      renderSummary();
      return;
    }

    const gc = t.closest(".gc-btn");
    if (gc && !gc.disabled) {
      const tt = tour();
      state.guests = Math.min(tt.max, Math.max(1, state.guests + (gc.classList.contains("gc-btn--plus") ? 1 : -1)));
      $(".gc-value", panel).textContent = state.guests;
      $(".gc-btn--minus", panel).disabled = state.guests <= 1;
      $(".gc-btn--plus", panel).disabled = state.guests >= tt.max;
      renderSummary();
      return;
    }

    // step 3
    if (t.closest("[data-book]")) { book(); return; }
  });

  panel.addEventListener("input", (e) => {
    if (e.target.name === "fullname") state.name = e.target.value;
    if (e.target.name === "email") state.email = e.target.value;
  });

  // close the calendar when clicking anywhere else
  document.addEventListener("mousedown", (e) => {
    if (!state.calOpen) return;
    if (e.target.closest(".cal-popover") || e.target.closest(".date-input")) return;
    openCal(false);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && state.calOpen) openCal(false);
  });

  function book() {
    const name = state.name.trim();
    const email = state.email.trim();
    let ok = true;
    const err = (k, m) => { $(`[data-err="${k}"]`, panel).textContent = m; if (m) ok = false; };
    err("name", name ? "" : "Enter the lead traveller's name.");
    err("email", /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? "" : "Enter a valid email address.");
    err("country", state.country ? "" : "Choose a country from the list.");
    if (!ok) { showError("Please check the highlighted fields."); return; }
    const booking = {
      tour: tour().name,
      date: isoOf(state.date),
      guests: state.guests,
      name,
      email,
      country: state.country,
    };
    GB.push("bookings", booking);
    state.done = { ...booking, ref: "TW-" + (100000 + GB.int(900000)) };
    if (countryBox) { countryBox.destroy(); countryBox = null; }
    render();
  }

  render();
})();
