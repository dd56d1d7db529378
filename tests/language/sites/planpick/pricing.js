(function () {
  "use strict";
  GB.rand(); // the first draw of a seeded stream follows the seed closely; skip it

  const FAQ = GB.shuffle([
    ["Can I switch between monthly and yearly billing later?", "Yes. You can move to yearly billing from Settings → Billing at any time; we credit whatever is left of your current month. Moving from yearly to monthly takes effect at your next renewal."],
    ["What counts as a user?", "Anyone with a seat in your workspace who can create or edit work. Guests with view-only access are free on the Team and Business plans."],
    ["Do you offer discounts for nonprofits and education?", "Registered nonprofits and schools get 50% off any plan. Contact our sales team with proof of status and we'll apply it to your account."],
    ["What payment methods do you accept?", "All major credit cards. Yearly plans on Business can also pay by invoice with net 30 terms."],
    ["Can I cancel anytime?", "Yes. Monthly plans can be cancelled at the end of any billing month. Yearly plans are refundable pro rata within the first 30 days."],
    ["Is my data secure?", "Data is encrypted in transit and at rest, backed up daily, and hosted in SOC 2 Type II certified data centres in the US or EU."],
  ]);

  // Monthly list prices per user; yearly is 20% off, shown per month.
  const PLANS = [
    { name: "Starter", monthly: GB.pick([10, 15]), tag: "For small teams getting organised.",
      features: ["Up to 10 users", "Unlimited boards", "5 GB storage per user", "Email support"] },
    { name: "Team", monthly: GB.pick([20, 25, 30]), tag: "For growing teams that plan work together.", featured: true,
      features: ["Up to 50 users", "Timeline & workload views", "Guest access", "50 GB storage per user", "Priority support"] },
    { name: "Business", monthly: 40 + 5 * GB.range(0, 4), tag: "For companies with advanced security needs.",
      leadIn: "Everything in Team, plus:",
      features: ["Up to 200 users", "SAML single sign-on", "Audit log & data export", "Unlimited storage", "Dedicated success manager"] },
  ];
  for (const p of PLANS) p.yearly = p.monthly * 0.8;

  const $ = (id) => document.getElementById(id);
  const money = (n) => "$" + (Number.isInteger(n) ? n.toLocaleString("en-US") : n.toFixed(2));
  let billing = "monthly";

  // ---- billing switch ------------------------------------------------------------------------
  const sw = $("billing-switch");
  function setBilling(next, record) {
    billing = next;
    sw.setAttribute("aria-checked", String(billing === "yearly"));
    $("lbl-monthly").classList.toggle("is-on", billing === "monthly");
    $("lbl-yearly").classList.toggle("is-on", billing === "yearly");
    if (record) GB.set({ billing });
    renderPlans();
  }
  sw.addEventListener("click", () => setBilling(billing === "yearly" ? "monthly" : "yearly", true));
  $("lbl-yearly").addEventListener("click", () => setBilling(billing === "yearly" ? "monthly" : "yearly", true));
  $("lbl-monthly").addEventListener("click", () => { if (billing !== "monthly") setBilling("monthly", true); });

  // ---- plan cards ----------------------------------------------------------------------------
  function renderPlans() {
    const root = $("plans");
    root.textContent = "";
    for (const p of PLANS) {
      const card = document.createElement("article");
      card.className = "plan" + (p.featured ? " plan--featured" : "");
      const id = GB.uid("plan");
      card.setAttribute("aria-labelledby", id);
      const yearly = billing === "yearly";
      card.innerHTML =
        (p.featured ? '<span class="plan__badge">Most popular</span>' : "") +
        `<h2 id="${id}"></h2><p class="plan__tag"></p>` +
        '<div class="plan__price">' +
        (yearly ? `<span class="plan__was">${money(p.monthly)}</span>` : "") +
        `<span class="plan__amount">${money(yearly ? p.yearly : p.monthly)}</span><span class="plan__per">/ user / month</span></div>` +
        `<div class="plan__billed">${yearly ? `Billed yearly at ${money(p.yearly * 12)} per user` : "Billed monthly"}</div>` +
        `<button type="button" class="btn btn--block ${p.featured ? "btn--primary" : "btn--outline"}">Choose plan</button>` +
        "<ul></ul>";
      card.querySelector("h2").textContent = p.name;
      card.querySelector(".plan__tag").textContent = p.tag;
      const ul = card.querySelector("ul");
      if (p.leadIn) { const li = document.createElement("li"); li.className = "lead-in"; li.textContent = p.leadIn; ul.appendChild(li); }
      for (const f of p.features) { const li = document.createElement("li"); li.textContent = f; ul.appendChild(li); }
      // The button checks out with the billing period shown when it was drawn.
      const period = billing;
      card.querySelector("button").addEventListener("click", (e) => openCheckout(p, period, e.currentTarget));
      root.appendChild(card);
    }
  }

  // ---- modals --------------------------------------------------------------------------------
  const scrim = $("scrim");
  let openModal = null;
  let returnFocus = null;
  function showModal(el, from) {
    openModal = el;
    returnFocus = from || null;
    el.hidden = scrim.hidden = false;
    const first = el.querySelector("input, button[type=submit]");
    if (first) first.focus();
  }
  function hideModal() {
    if (!openModal) return;
    openModal.hidden = scrim.hidden = true;
    openModal = null;
    if (returnFocus) returnFocus.focus();
  }
  for (const b of document.querySelectorAll("[data-close]")) b.addEventListener("click", hideModal);
  scrim.addEventListener("click", hideModal);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") hideModal(); });

  // ---- checkout ------------------------------------------------------------------------------
  let current = null; // { plan, period }
  let seats = 5;
  function renderSummary() {
    const { plan, period } = current;
    const rate = period === "yearly" ? plan.yearly : plan.monthly;
    $("co-plan").textContent = `${plan.name} plan`;
    $("co-billing").textContent = period === "yearly" ? "Billed yearly" : "Billed monthly";
    $("seats").textContent = String(seats);
    if (period === "yearly") {
      $("co-rate").textContent = `${money(rate)} × ${seats} seats × 12 months`;
      $("co-total").textContent = `${money(rate * seats * 12)} / year`;
      $("co-note").textContent = `You save ${money((plan.monthly - plan.yearly) * seats * 12)} a year compared with monthly billing.`;
    } else {
      $("co-rate").textContent = `${money(rate)} × ${seats} seats`;
      $("co-total").textContent = `${money(rate * seats)} / month`;
      $("co-note").textContent = "Switch to yearly billing on the pricing page to save 20%.";
    }
  }
  function openCheckout(plan, period, from) {
    current = { plan, period };
    seats = 5;
    GB.push("chosen", { plan: plan.name, billing: period });
    $("checkout-form").hidden = false;
    $("done").hidden = true;
    $("checkout-form").reset();
    $("company").removeAttribute("aria-invalid");
    $("company-error").hidden = true;
    renderSummary();
    showModal($("checkout"), from);
  }
  $("seats-minus").addEventListener("click", () => { if (seats > 1) { seats -= 1; renderSummary(); } });
  $("seats-plus").addEventListener("click", () => { if (seats < 200) { seats += 1; renderSummary(); } });
  $("checkout-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const company = $("company").value.trim();
    if (!company) {
      $("company").setAttribute("aria-invalid", "true");
      $("company-error").hidden = false;
      $("company").focus();
      return;
    }
    $("company").removeAttribute("aria-invalid");
    $("company-error").hidden = true;
    const { plan, period } = current;
    GB.set({ order: { plan: plan.name, billing: period, company, seats }, confirmed: true });
    $("checkout-form").hidden = true;
    $("done").hidden = false;
    $("done-text").textContent = `${company} is now on Tallyboard ${plan.name}, billed ${period}. Your 14-day trial starts today.`;
    $("done").querySelector("button").focus();
  });

  // ---- header actions ------------------------------------------------------------------------
  $("trial-btn").addEventListener("click", (e) => showModal($("trial"), e.currentTarget));
  $("signin-btn").addEventListener("click", (e) => showModal($("signin"), e.currentTarget));
  $("trial-form").addEventListener("submit", (e) => {
    e.preventDefault();
    GB.push("trial", { email: $("trial-email").value.trim() });
    $("trial-form").innerHTML = '<p>Check your inbox — we sent you a link to set up your workspace.</p>';
  });
  $("signin-form").addEventListener("submit", (e) => {
    e.preventDefault();
    GB.push("signin", { email: $("signin-email").value.trim() });
    $("signin-form").innerHTML = '<p class="field__error">We couldn\'t find an account with that email and password.</p>';
  });

  // ---- FAQ accordion -------------------------------------------------------------------------
  const faq = $("faq");
  for (const [q, a] of FAQ) {
    const item = document.createElement("div");
    item.className = "faq__item";
    const qid = GB.uid("q"), aid = GB.uid("a");
    item.innerHTML =
      `<h3><button type="button" class="faq__q" id="${qid}" aria-expanded="false" aria-controls="${aid}"><span></span>` +
      '<svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><path d="m6 9 6 6 6-6"/></svg></button></h3>' +
      `<div class="faq__a" id="${aid}" role="region" aria-labelledby="${qid}" hidden></div>`;
    item.querySelector(".faq__q span").textContent = q;
    item.querySelector(".faq__a").textContent = a;
    const btn = item.querySelector("button");
    btn.addEventListener("click", () => {
      const open = btn.getAttribute("aria-expanded") !== "true";
      btn.setAttribute("aria-expanded", String(open));
      item.querySelector(".faq__a").hidden = !open;
    });
    faq.appendChild(item);
  }

  setBilling("monthly", false);
})();
