(function () {
  "use strict";

  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

  // Seeded: the order of the account cards, their rates, the preselected interest frequency and
  // the application reference.
  const PRODUCTS = [
    { name: "Easy Access Saver", desc: "Pay in and take money out whenever you like.", min: 1,
      rate: (3.0 + GB.int(5) / 10).toFixed(2), term: "AER variable" },
    { name: "95 Day Notice Saver", desc: "Give us 95 days' notice before you withdraw.", min: 1000,
      rate: (3.6 + GB.int(5) / 10).toFixed(2), term: "AER variable" },
    { name: "1 Year Fixed Rate Bond", desc: "Lock your money away for 12 months at a fixed rate.", min: 500,
      rate: (4.0 + GB.int(5) / 10).toFixed(2), term: "AER fixed" },
  ];
  const products = GB.shuffle(PRODUCTS);
  const reference = "FL-" + String(GB.range(100000, 999999));
  const defaultInterest = GB.pick(["Monthly", "Annually"]);

  const form = $("#application");
  const steps = $$(".step[data-step]");
  const total = steps.length;
  let current = 1;
  let product = null;
  let interest = defaultInterest;

  // ---- account type cards (a radio group of buttons) ----
  const group = $("#account-type");
  for (const p of products) {
    const card = document.createElement("button");
    card.type = "button";
    card.className = "choice-card";
    card.setAttribute("role", "radio");
    card.setAttribute("aria-checked", "false");
    card.tabIndex = -1;
    card.dataset.value = p.name;
    card.innerHTML = `<span class="choice-card__dot" aria-hidden="true"></span>
      <span><span class="choice-card__name"></span><br><span class="choice-card__desc"></span></span>
      <span class="choice-card__rate">${p.rate}%<small>${p.term}</small></span>`;
    $(".choice-card__name", card).textContent = p.name;
    $(".choice-card__desc", card).textContent = p.desc + (p.min > 1 ? ` Minimum £${p.min.toLocaleString("en-GB")}.` : "");
    card.addEventListener("click", () => chooseProduct(p, card));
    group.appendChild(card);
  }
  group.firstElementChild.tabIndex = 0;

  function chooseProduct(p, card) {
    product = p;
    for (const c of group.children) {
      const on = c === card;
      c.setAttribute("aria-checked", String(on));
      c.tabIndex = on ? 0 : -1;
    }
    setError("account", "");
  }

  // ---- segmented control ----
  const seg = $("#interest");
  function chooseInterest(value) {
    interest = value;
    for (const b of $$('[role="radio"]', seg)) {
      const on = b.dataset.value === value;
      b.setAttribute("aria-checked", String(on));
      b.tabIndex = on ? 0 : -1;
    }
  }
  for (const b of $$('[role="radio"]', seg)) b.addEventListener("click", () => chooseInterest(b.dataset.value));
  chooseInterest(defaultInterest);

  // Arrow keys move within either radio group, as native radios do.
  for (const rg of [group, seg]) {
    rg.addEventListener("keydown", (ev) => {
      const opts = $$('[role="radio"]', rg);
      const i = opts.indexOf(document.activeElement);
      if (i < 0) return;
      let j = null;
      if (ev.key === "ArrowDown" || ev.key === "ArrowRight") j = (i + 1) % opts.length;
      if (ev.key === "ArrowUp" || ev.key === "ArrowLeft") j = (i - 1 + opts.length) % opts.length;
      if (j === null) return;
      ev.preventDefault();
      opts[j].focus();
      opts[j].click();
    });
  }

  // ---- validation ----
  function setError(key, message) {
    const el = $(`#${key}-error`);
    if (el) el.textContent = message;
    const input = $(`#${key}`);
    if (input && input.tagName === "INPUT") input.setAttribute("aria-invalid", message ? "true" : "false");
  }
  const val = (id) => $(`#${id}`).value.trim();
  function parseAmount(text) {
    const clean = text.replace(/[£,\s]/g, "");
    if (!/^\d+(\.\d{1,2})?$/.test(clean)) return NaN;
    return Number(clean);
  }
  const money = (n) => "£" + n.toLocaleString("en-GB", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

  function validate(step) {
    const problems = [];
    if (step === 1) {
      setError("first-name", val("first-name") ? "" : "Enter your first name");
      setError("last-name", val("last-name") ? "" : "Enter your last name");
      const email = val("email");
      setError("email", !email ? "Enter your email address"
        : (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? "" : "Enter an email address in the correct format, like name@example.com"));
      for (const k of ["first-name", "last-name", "email"]) if ($(`#${k}-error`).textContent) problems.push(k);
    }
    if (step === 2) {
      setError("account", product ? "" : "Choose an account type");
      if (!product) problems.push("account-type");
      const amount = parseAmount(val("deposit"));
      let msg = "";
      if (!val("deposit")) msg = "Enter how much you'd like to pay in";
      else if (Number.isNaN(amount)) msg = "Enter an amount in pounds, like 250 or 1,500.50";
      else if (product && amount < product.min) msg = `The minimum deposit for this account is £${product.min.toLocaleString("en-GB")}`;
      else if (amount > 250000) msg = "You can pay in up to £250,000";
      else if (amount <= 0) msg = "Enter an amount greater than £0";
      setError("deposit", msg);
      if (msg) problems.push("deposit");
    }
    if (step === 3) {
      setError("terms", $("#terms").checked ? "" : "You need to agree to the terms to open the account");
      if (!$("#terms").checked) problems.push("terms");
    }
    if (problems.length) {
      const first = $(`#${problems[0]}`);
      if (first) (first.getAttribute("role") === "radiogroup" ? first.querySelector('[tabindex="0"]') : first).focus();
    }
    return problems.length === 0;
  }

  // ---- navigation ----
  function show(n) {
    current = n;
    for (const s of steps) s.hidden = Number(s.dataset.step) !== n;
    $("#progress-label").textContent = `Step ${n} of ${total}`;
    for (const li of $$(".progress__step")) {
      const k = Number(li.dataset.for);
      li.classList.toggle("progress__step--done", k < n);
      li.classList.toggle("progress__step--current", k === n);
      if (k === n) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
    }
    if (n === 3) renderSummary();
    const heading = $(`#step-${n}-heading`);
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
    window.scrollTo({ top: 0 });
  }

  function renderSummary() {
    const amount = parseAmount(val("deposit"));
    const rows = [
      ["Name", `${val("first-name")} ${val("last-name")}`, 1],
      ["Email address", val("email"), 1],
      ["Mobile number", val("mobile") || "Not provided", 1],
      ["Account type", product ? `${product.name} (${product.rate}% ${product.term})` : "", 2],
      ["Initial deposit", money(amount), 2],
      ["Interest paid", interest, 2],
    ];
    const dl = $("#summary");
    dl.textContent = "";
    for (const [label, value, step] of rows) {
      const row = document.createElement("div");
      row.className = "summary__row";
      row.innerHTML = `<dt></dt><dd></dd><dd><button type="button" class="link-btn">Change</button></dd>`;
      row.children[0].textContent = label;
      row.children[1].textContent = value;
      const change = $(".link-btn", row);
      change.setAttribute("aria-label", `Change ${label.toLowerCase()}`);
      change.addEventListener("click", () => show(step));
      dl.appendChild(row);
    }
  }

  form.addEventListener("click", (ev) => {
    const nav = ev.target.closest("[data-nav]");
    if (!nav) return;
    if (nav.dataset.nav === "back") show(current - 1);
    else if (validate(current)) show(current + 1);
  });

  // Enter in a text field moves on, as the step's primary button would.
  form.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || ev.target.tagName !== "INPUT" || ev.target.type === "checkbox") return;
    ev.preventDefault();
    const primary = $(`#step-${current} .btn--primary`);
    if (primary) primary.click();
  });
  form.addEventListener("submit", (ev) => ev.preventDefault());

  $("#terms").addEventListener("change", () => { if ($("#terms").checked) setError("terms", ""); });

  $("#submit").addEventListener("click", () => {
    if (!validate(3)) return;
    const record = {
      first_name: val("first-name"),
      last_name: val("last-name"),
      email: val("email").toLowerCase(),
      mobile: val("mobile"),
      account: product.name,
      deposit: parseAmount(val("deposit")),
      interest,
    };
    GB.set({ application: record });
    for (const s of steps) s.hidden = true;
    $(".progress").hidden = true;
    $("#done-text").textContent = `Thanks, ${record.first_name}. We've emailed ${record.email} with what happens next.`;
    $("#done-ref").textContent = reference;
    $("#step-done").hidden = false;
  });

  show(1);
  // Opening on step 1 should not steal focus into the heading before the user acts.
  document.activeElement.blur();
})();
