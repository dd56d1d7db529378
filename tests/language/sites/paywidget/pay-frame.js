(function () {
  "use strict";
  GB.rand(); // the first draw of a seeded stream follows the seed closely; skip it
  const params = new URLSearchParams(location.search);
  const amount = (parseInt(params.get("amount") || "0", 10) || 0) / 100;
  const merchant = params.get("merchant") || "the merchant";
  const amountText = "£" + amount.toFixed(2);

  const COUNTRIES = ["Australia", "Austria", "Belgium", "Canada", "France", "Germany", "Iceland", "Ireland",
    "Isle of Man", "Italy", "Netherlands", "Spain", "Switzerland", "United Kingdom", "United States"];
  const POSTAL = { "United Kingdom": ["Postcode", "SW1A 1AA"], "Isle of Man": ["Postcode", "IM1 1AA"],
    "United States": ["ZIP", "12345"], "Canada": ["Postal code", "K1A 0B1"] };

  const $ = (id) => document.getElementById(id);
  const form = $("pay-form");
  const num = $("cardnumber"), exp = $("expiry"), cvc = $("cvc"), post = $("postcode");
  const payBtn = $("pay-btn");
  payBtn.textContent = `Pay ${amountText}`;

  function tell(msg) { if (window.parent !== window) window.parent.postMessage(msg, location.origin); }
  function reportHeight() {
    const shown = form.hidden ? $("done") : form;
    let h = shown.offsetTop + shown.offsetHeight + 8;
    if (!menu.hidden) h = Math.max(h, menu.getBoundingClientRect().bottom + window.scrollY + 12);
    tell({ type: "pw:resize", height: h });
  }

  // ---- Card number -----------------------------------------------------------------------
  const brands = $("brands");
  function brandOf(d) {
    if (/^3[47]/.test(d)) return "amex";
    if (/^(5[1-5]|2[2-7])/.test(d)) return "mc";
    if (/^4/.test(d)) return "visa";
    return "";
  }
  function luhn(d) {
    let s = 0;
    for (let i = 0; i < d.length; i++) {
      let x = +d[d.length - 1 - i];
      if (i % 2) { x *= 2; if (x > 9) x -= 9; }
      s += x;
    }
    return s % 10 === 0;
  }
  num.addEventListener("input", () => {
    const d = num.value.replace(/\D/g, "").slice(0, 19);
    const b = brandOf(d);
    num.value = b === "amex"
      ? [d.slice(0, 4), d.slice(4, 10), d.slice(10, 15)].filter(Boolean).join(" ")
      : d.replace(/(\d{4})(?=\d)/g, "$1 ");
    brands.classList.toggle("known", !!b);
    for (const el of brands.children) el.classList.toggle("on", el.classList.contains(`brand--${b}`));
    clearErr(num, "err-number");
  });
  const digits = (el) => el.value.replace(/\D/g, "");

  // ---- Expiry: "MM / YY", the slash is added for you ----------------------------------------
  exp.addEventListener("input", (e) => {
    let d = exp.value.replace(/\D/g, "");
    if (d && d[0] > "1") d = "0" + d;
    d = d.slice(0, 4);
    const deleting = e.inputType && e.inputType.startsWith("delete");
    exp.value = d.length > 2 || (d.length === 2 && !deleting) ? `${d.slice(0, 2)} / ${d.slice(2)}` : d;
    clearErr(exp, "err-expiry");
  });
  cvc.addEventListener("input", () => { cvc.value = cvc.value.replace(/\D/g, "").slice(0, 4); clearErr(cvc, "err-cvc"); });
  post.addEventListener("input", () => clearErr(post, "err-postcode"));

  function setErr(input, id, text) { $(id).textContent = text; input.closest(".pf__input").classList.add("invalid"); reportHeight(); }
  function clearErr(input, id) { if ($(id).textContent) { $(id).textContent = ""; input.closest(".pf__input").classList.remove("invalid"); reportHeight(); } }

  function checkNumber() {
    const d = digits(num);
    if (!d) return "Your card number is incomplete.";
    const want = brandOf(d) === "amex" ? 15 : 16;
    if (d.length < want) return "Your card number is incomplete.";
    if (!luhn(d)) return "Your card number is invalid.";
    return "";
  }
  function checkExpiry() {
    const d = digits(exp);
    if (d.length < 4) return "Your card's expiry date is incomplete.";
    const mm = +d.slice(0, 2), yy = +d.slice(2);
    if (mm < 1 || mm > 12) return "Your card's expiry month is invalid.";
    const now = new Date();
    const cy = now.getFullYear() % 100, cm = now.getMonth() + 1;
    if (yy < cy || (yy === cy && mm < cm)) return "Your card's expiry year is in the past.";
    return "";
  }
  function checkCvc() {
    const d = digits(cvc);
    const want = brandOf(digits(num)) === "amex" ? 4 : 3;
    return d.length < want ? "Your card's security code is incomplete." : "";
  }
  num.addEventListener("blur", () => { if (num.value) { const m = checkNumber(); if (m) setErr(num, "err-number", m); } });
  exp.addEventListener("blur", () => { if (exp.value) { const m = checkExpiry(); if (m) setErr(exp, "err-expiry", m); } });
  cvc.addEventListener("blur", () => { if (cvc.value) { const m = checkCvc(); if (m) setErr(cvc, "err-cvc", m); } });

  // ---- Country: a hand-rolled dropdown ------------------------------------------------------
  const cbtn = $("country-btn"), cval = $("country-val"), menu = $("country-menu");
  let country = "United Kingdom";
  function syncPostal() {
    const p = POSTAL[country];
    $("postcode-field").hidden = !p;
    if (p) { $("postcode-label").textContent = p[0]; post.placeholder = p[1]; }
    clearErr(post, "err-postcode");
  }
  function openMenu() {
    menu.textContent = "";
    for (const name of COUNTRIES) {
      const item = document.createElement("div");
      item.className = "cs__item" + (name === country ? " sel" : "");
      item.textContent = name;
      item.addEventListener("click", (e) => { e.stopPropagation(); pick(name); });
      menu.appendChild(item);
    }
    menu.hidden = false;
    cbtn.classList.add("open");
    const sel = menu.querySelector(".sel");
    if (sel) menu.scrollTop = sel.offsetTop + sel.offsetHeight - menu.clientHeight + 4;
    reportHeight();
  }
  function closeMenu() {
    if (menu.hidden) return;
    menu.hidden = true;
    cbtn.classList.remove("open");
    reportHeight();
  }
  function pick(name) {
    country = name;
    cval.textContent = name;
    closeMenu();
    syncPostal();
    GB.set({ country: name });
  }
  cbtn.addEventListener("click", (e) => { e.stopPropagation(); if (menu.hidden) openMenu(); else closeMenu(); });
  document.addEventListener("click", (e) => { if (!e.target.closest(".cs")) closeMenu(); });

  // ---- Pay -------------------------------------------------------------------------------
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    closeMenu();
    const errs = [[num, "err-number", checkNumber()], [exp, "err-expiry", checkExpiry()], [cvc, "err-cvc", checkCvc()]];
    if (POSTAL[country]) errs.push([post, "err-postcode", post.value.trim() ? "" : `Your ${POSTAL[country][0].toLowerCase()} is incomplete.`]);
    let first = null;
    for (const [input, id, msg] of errs) {
      if (msg) { setErr(input, id, msg); first = first || input; } else clearErr(input, id);
    }
    if (first) { first.focus(); return; }
    payBtn.disabled = true;
    payBtn.textContent = "Processing…";
    setTimeout(() => {
      const d = digits(exp);
      const card = { number: digits(num), expiry: `${d.slice(0, 2)}/${d.slice(2)}`, cvc: digits(cvc) };
      GB.set({ card, country, paid: true });
      const ref = String(GB.range(100000, 999999));
      form.hidden = true;
      $("done").hidden = false;
      $("done-text").textContent = `${amountText} paid to ${merchant} with the card ending ${card.number.slice(-4)}.`;
      reportHeight();
      tell({ type: "pw:paid", ref });
    }, 900);
  });

  syncPostal();
  if (document.readyState === "complete") reportHeight(); else window.addEventListener("load", reportHeight);
  new ResizeObserver(reportHeight).observe(document.body);
})();
