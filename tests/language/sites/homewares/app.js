/* Hearth & Loom — account / orders page. Hand-rolled, no framework. */
(function () {
  "use strict";

  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  var TODAY = Date.UTC(2024, 4, 20); // fixed "today" so the page never reads the clock
  var DAY = 86400000;
  function fmtDate(offset) {
    var d = new Date(TODAY - offset * DAY);
    return d.getUTCDate() + " " + MONTHS[d.getUTCMonth()] + " " + d.getUTCFullYear();
  }
  function money(n) { return "£" + n.toFixed(2); }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }

  var firstName = GB.pick(["Priya", "Tom", "Aoife", "Marek", "Grace", "Sam"]);
  var cardBrand = GB.pick(["Visa", "Mastercard"]);
  var cardLast4 = String(1000 + GB.int(9000));
  document.querySelector(".js-first-name").textContent = firstName;

  // ---------------------------------------------------------------- catalogue
  var colours = ["Oat", "Sage", "Clay", "Chalk", "Indigo"];
  var swatch = { Oat: "#d9c9a8", Sage: "#a9b89a", Clay: "#c58b6b", Chalk: "#ece8df", Indigo: "#4a5a80", Brass: "#c9a25a", Copper: "#b8734a", Natural: "#cdb38a", Ash: "#b9b4ab" };

  function item(id, name, price, opts) {
    opts = opts || {};
    return { id: id, name: name, price: price, qty: opts.qty || 1, variant: opts.variant || null, finalSale: !!opts.finalSale };
  }
  var napkinColour = GB.pick(colours);
  var NAPKINS = item("linen-napkins-4", "Linen napkins (set of 4)", GB.range(18, 32), { qty: 3, variant: "Colour: " + napkinColour });
  var RINGS = item("napkin-rings-brass", "Linen napkin rings (brass, set of 4)", GB.range(14, 22), { qty: 2, variant: "Finish: Brass" });
  var CLOTH = item("linen-tablecloth", "Linen tablecloth 140 × 240 cm", GB.range(48, 72), { variant: "Colour: " + GB.pick(colours) });
  var fillers = GB.shuffle([
    item("stoneware-mug", "Stoneware mug", GB.range(9, 14), { qty: 2, variant: "Glaze: " + GB.pick(["Sage", "Chalk", "Indigo"]) }),
    item("copper-milk-pan", "Copper milk pan 14 cm", GB.range(38, 55), { variant: "Finish: Copper" }),
    item("waffle-towel", "Waffle bath towel", GB.range(16, 26), { qty: 2, variant: "Colour: " + GB.pick(colours) }),
    item("oak-board", "Oak chopping board", GB.range(28, 40), { variant: "Size: Large" }),
    item("wool-throw", "Herringbone wool throw", GB.range(55, 80), { variant: "Colour: Ash", finalSale: true }),
    item("enamel-colander", "Enamel colander", GB.range(19, 27), { variant: "Colour: Chalk" }),
    item("beeswax-candles", "Beeswax dinner candles (pair)", GB.range(8, 13), { qty: 2, variant: "Colour: Natural" })
  ]);
  [NAPKINS, RINGS, CLOTH].concat(fillers).forEach(function (it) { it.price = it.price - 0.01 * (GB.int(2) ? 0 : 5); });

  function orderNo() { return "HL" + (100000 + GB.int(899999)); }

  // Which eligible order holds the napkins, which the rings, is seeded.
  var eligA = { no: orderNo(), placed: GB.range(6, 10), status: "delivered", items: [] };
  var eligB = { no: orderNo(), placed: GB.range(13, 20), status: "delivered", items: [] };
  var transit = { no: orderNo(), placed: GB.range(1, 3), status: "transit", items: [] };
  var closed = { no: orderNo(), placed: GB.range(52, 75), status: "closed", items: [] };
  var pair = GB.shuffle([eligA, eligB]);
  pair[0].items.push(NAPKINS);
  pair[1].items.push(RINGS);
  GB.pick([eligA, eligB, closed]).items.push(CLOTH);
  transit.items.push(fillers[0]);
  eligA.items.push(fillers[1]);
  eligB.items.push(fillers[2], fillers[3]);
  closed.items.push(fillers[4], fillers[5]);
  transit.items.push(fillers[6]);
  [eligA, eligB, closed, transit].forEach(function (o) { o.items = GB.shuffle(o.items); });
  var ORDERS = [transit, eligA, eligB, closed].sort(function (a, b) { return a.placed - b.placed; });

  var returned = {}; // item id -> RMA
  var bag = 0;

  // ---------------------------------------------------------------- orders list
  var list = document.querySelector(".js-orders");

  function orderTotal(o) {
    return o.items.reduce(function (s, it) { return s + it.price * it.qty; }, 0) + (o.status === "transit" ? 0 : 0);
  }

  function lineHtml(o, it) {
    var colour = (it.variant || "").split(": ")[1];
    var sw = swatch[colour] || "#ddd";
    var actions;
    if (returned[it.id]) {
      actions = '<span class="badge badge--ok">Return requested · ' + esc(returned[it.id]) + '</span>';
    } else if (o.status === "transit") {
      actions = '<span class="muted small">Returns open once delivered</span>';
    } else if (o.status === "closed") {
      actions = '<span class="muted small">Return window closed on ' + fmtDate(o.placed - 34) + '</span>';
    } else if (it.finalSale) {
      actions = '<span class="pill">Final sale</span>';
    } else {
      actions = '<a href="#" class="btn btn--ghost btn--sm js-return" data-item="' + it.id + '">Return item</a>';
    }
    return (
      '<div class="line-item" data-v-' + GB.uid("li").slice(3) + ' data-sku="' + it.id + '">' +
        '<div class="line-item__thumb" style="background:' + sw + '"></div>' +
        '<div class="line-item__info">' +
          '<a href="#" class="line-item__name">' + esc(it.name) + '</a>' +
          '<div class="line-item__meta">' + esc(it.variant || "") + ' · Qty ' + it.qty + '</div>' +
          '<div class="line-item__price">' + money(it.price) + (it.qty > 1 ? ' <span class="muted">each</span>' : "") + '</div>' +
        '</div>' +
        '<div class="line-item__actions">' +
          '<button type="button" class="btn btn--primary btn--sm js-buy" data-item="' + it.id + '">Buy it again</button>' +
          actions +
        '</div>' +
      '</div>'
    );
  }

  function statusHtml(o) {
    if (o.status === "transit") return '<span class="status status--transit"><i></i>On its way · arriving ' + fmtDate(-2).replace(/ \d{4}$/, "") + '</span>';
    return '<span class="status status--done"><i></i>Delivered ' + fmtDate(o.placed - 3).replace(/ \d{4}$/, "") + '</span>';
  }

  function render() {
    list.innerHTML = ORDERS.map(function (o) {
      return (
        '<article class="order-card">' +
          '<div class="order-card__head">' +
            '<div><div class="k">Order placed</div><div class="v">' + fmtDate(o.placed) + '</div></div>' +
            '<div><div class="k">Total</div><div class="v">' + money(orderTotal(o)) + '</div></div>' +
            '<div><div class="k">Dispatch to</div><div class="v link-ish">' + esc(firstName) + ' ▾</div></div>' +
            '<div class="order-card__no"><div class="k">Order # ' + o.no + '</div><div class="v"><a href="#">View invoice</a></div></div>' +
          '</div>' +
          '<div class="order-card__status">' + statusHtml(o) +
            (o.status === "transit" ? '<button type="button" class="btn btn--ghost btn--sm">Track parcel</button>' : "") +
          '</div>' +
          '<div class="order-card__items">' + o.items.map(function (it) { return lineHtml(o, it); }).join("") + '</div>' +
        '</article>'
      );
    }).join("");
  }
  render();

  function findItem(id) {
    for (var i = 0; i < ORDERS.length; i++)
      for (var j = 0; j < ORDERS[i].items.length; j++)
        if (ORDERS[i].items[j].id === id) return { order: ORDERS[i], item: ORDERS[i].items[j] };
    return null;
  }

  var toastEl = document.querySelector(".js-toast");
  var toastTimer = null;
  function toast(msg) {
    toastEl.textContent = msg;
    toastEl.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { toastEl.hidden = true; }, 3500);
  }

  list.addEventListener("click", function (e) {
    var buy = e.target.closest(".js-buy");
    if (buy) {
      var f = findItem(buy.dataset.item);
      bag += 1;
      document.querySelector(".js-bag-count").textContent = bag;
      GB.set({ ["bought_again." + f.item.id]: true });
      toast("Added to bag: " + f.item.name);
      return;
    }
    var ret = e.target.closest(".js-return");
    if (ret) {
      e.preventDefault();
      openDrawer(ret.dataset.item);
    }
  });

  // ---------------------------------------------------------------- cookie bar
  document.querySelector(".js-cookie-ok").addEventListener("click", function () {
    document.getElementById("cookie-bar").classList.add("is-gone");
  });

  // ---------------------------------------------------------------- return drawer
  var REASONS = [
    ["changed", "Changed my mind"],
    ["damaged", "Arrived damaged or faulty"],
    ["wrong", "Received the wrong item"],
    ["desc", "Not as described"],
    ["late", "Arrived too late"],
    ["quality", "Quality not as expected"],
    ["other", "Other"]
  ];
  var drawer = document.querySelector(".js-drawer");
  var scrim = document.querySelector(".js-scrim");
  var body = document.querySelector(".js-drawer-body");
  var foot = document.querySelector(".js-drawer-foot");
  var titleEl = document.querySelector(".js-drawer-title");
  var form = null;

  function openDrawer(id) {
    var f = findItem(id);
    form = { order: f.order, item: f.item, reason: null, qty: 1, refund: "store_credit", method: "dropoff", note: "", step: "form", error: false, listOpen: false };
    drawer.classList.add("is-open");
    drawer.setAttribute("aria-hidden", "false");
    scrim.hidden = false;
    renderDrawer();
  }
  function closeDrawer() {
    drawer.classList.remove("is-open");
    drawer.setAttribute("aria-hidden", "true");
    scrim.hidden = true;
    form = null;
  }
  function refundAmount() {
    var base = form.item.price * form.qty - (form.method === "courier" ? 3.95 : 0);
    return form.refund === "store_credit" ? base * 1.1 : base;
  }
  function reasonText(key) {
    for (var i = 0; i < REASONS.length; i++) if (REASONS[i][0] === key) return REASONS[i][1];
    return null;
  }

  function optCard(group, value, checked, title, sub, badge) {
    var id = GB.uid("opt");
    return (
      '<label class="opt-card' + (checked ? " is-checked" : "") + '" for="' + id + '">' +
        '<input type="radio" class="sr-only" id="' + id + '" name="' + group + '-' + form.item.id + '" value="' + value + '"' + (checked ? " checked" : "") + '>' +
        '<span class="opt-card__dot"></span>' +
        '<span class="opt-card__text"><span class="opt-card__title">' + title + (badge ? ' <span class="tag">' + badge + '</span>' : "") + '</span>' +
        '<span class="opt-card__sub">' + sub + '</span></span>' +
      '</label>'
    );
  }

  function summaryHtml() {
    var it = form.item;
    var colour = (it.variant || "").split(": ")[1];
    return (
      '<div class="ret-item">' +
        '<div class="line-item__thumb" style="background:' + (swatch[colour] || "#ddd") + '"></div>' +
        '<div><div class="ret-item__name">' + esc(it.name) + '</div>' +
        '<div class="muted small">' + esc(it.variant || "") + ' · Order # ' + form.order.no + '</div>' +
        '<div class="muted small">' + it.qty + ' purchased at ' + money(it.price) + (it.qty > 1 ? " each" : "") + '</div></div>' +
      '</div>'
    );
  }

  function renderDrawer() {
    if (!form) return;
    var keepScroll = body.scrollTop;
    paintDrawer();
    body.scrollTop = keepScroll;
  }

  function paintDrawer() {
    if (form.step === "form") {
      titleEl.textContent = "Return an item";
      var cur = reasonText(form.reason);
      body.innerHTML =
        summaryHtml() +
        '<div class="fld">' +
          '<div class="fld__label">Why are you returning it?</div>' +
          '<div class="rf-select' + (form.listOpen ? " is-open" : "") + (form.error && !form.reason ? " has-error" : "") + '">' +
            '<button type="button" class="rf-select__trigger js-reason-trigger" aria-haspopup="listbox" aria-expanded="' + form.listOpen + '">' +
              '<span class="rf-select__value' + (cur ? "" : " is-placeholder") + '">' + (cur || "Choose a reason") + '</span><i class="chev"></i>' +
            '</button>' +
            (form.listOpen ?
              '<ul class="rf-select__list" role="listbox">' + REASONS.map(function (r) {
                return '<li role="option" class="rf-select__opt' + (r[0] === form.reason ? " is-sel" : "") + '" aria-selected="' + (r[0] === form.reason) + '" data-key="' + r[0] + '">' + r[1] + '</li>';
              }).join("") + '</ul>' : "") +
          '</div>' +
          (form.error && !form.reason ? '<div class="fld__err">Please choose a reason for your return</div>' : "") +
        '</div>' +
        '<div class="fld">' +
          '<div class="fld__label">How many are you returning?</div>' +
          '<div class="stepper">' +
            '<button type="button" class="stepper__btn js-dec"' + (form.qty <= 1 ? " disabled" : "") + '>−</button>' +
            '<input class="stepper__val" type="text" value="' + form.qty + '" readonly>' +
            '<button type="button" class="stepper__btn js-inc"' + (form.qty >= form.item.qty ? " disabled" : "") + '>+</button>' +
            '<span class="muted small">of ' + form.item.qty + '</span>' +
          '</div>' +
        '</div>' +
        '<div class="fld">' +
          '<div class="fld__label">How would you like your refund?</div>' +
          optCard("refund", "store_credit", form.refund === "store_credit", "Hearth &amp; Loom store credit", "Instant · we add a 10% bonus", "Recommended") +
          optCard("refund", "original", form.refund === "original", "Original payment method", cardBrand + " ending " + cardLast4 + " · 3–5 working days after we receive it") +
        '</div>' +
        '<div class="fld">' +
          '<div class="fld__label">How will you send it back?</div>' +
          optCard("method", "dropoff", form.method === "dropoff", "Drop off at a Parcel Point", "Free · print-free QR code") +
          optCard("method", "courier", form.method === "courier", "Courier collection from your door", "£3.95, taken off your refund") +
        '</div>' +
        '<div class="fld">' +
          '<div class="fld__label">Anything else we should know? <span class="muted">(optional)</span></div>' +
          '<textarea class="ta js-note" rows="3" placeholder="e.g. the box was crushed">' + esc(form.note) + '</textarea>' +
        '</div>';
      foot.innerHTML =
        '<div class="est"><span class="muted small">Estimated refund</span><strong>' + money(refundAmount()) + '</strong></div>' +
        '<div class="foot-actions"><a href="#" class="link js-cancel">Cancel</a>' +
        '<button type="button" class="btn btn--dark js-review">Review return</button></div>';
    } else if (form.step === "review") {
      titleEl.textContent = "Check your return";
      body.innerHTML =
        summaryHtml() +
        '<dl class="review">' +
          '<dt>Returning</dt><dd>' + form.qty + ' × ' + esc(form.item.name) + '</dd>' +
          '<dt>Reason</dt><dd>' + reasonText(form.reason) + '</dd>' +
          '<dt>Refund to</dt><dd>' + (form.refund === "original" ? cardBrand + " ending " + cardLast4 : "Store credit (incl. 10% bonus)") + '</dd>' +
          '<dt>Send back by</dt><dd>' + (form.method === "dropoff" ? "Parcel Point drop-off" : "Courier collection") + '</dd>' +
          '<dt>Refund amount</dt><dd><strong>' + money(refundAmount()) + '</strong></dd>' +
        '</dl>' +
        '<p class="muted small">Pack the items securely. Your QR code will be emailed once you confirm.</p>';
      foot.innerHTML =
        '<div class="foot-actions foot-actions--full"><button type="button" class="btn btn--ghost js-edit">Edit</button>' +
        '<button type="button" class="btn btn--dark js-confirm">Confirm return</button></div>';
    } else {
      titleEl.textContent = "Return requested";
      body.innerHTML =
        '<div class="done"><div class="done__tick">✓</div><h2>Thanks, ' + esc(firstName) + '</h2>' +
        '<p>Your return reference is <strong>' + returned[form.item.id] + '</strong>.</p>' +
        '<p class="muted">We’ve emailed your Parcel Point QR code. We’ll refund ' + money(refundAmount()) + ' once it arrives.</p></div>';
      foot.innerHTML = '<div class="foot-actions foot-actions--full"><button type="button" class="btn btn--dark js-done">Done</button></div>';
    }
  }

  drawer.addEventListener("click", function (e) {
    if (!form) return;
    var t = e.target;
    if (t.closest(".js-close") || t.closest(".js-cancel") || t.closest(".js-done")) { e.preventDefault(); closeDrawer(); return; }
    if (t.closest(".js-reason-trigger")) { form.listOpen = !form.listOpen; renderDrawer(); return; }
    var opt = t.closest(".rf-select__opt");
    if (opt) { form.reason = opt.dataset.key; form.listOpen = false; renderDrawer(); return; }
    if (form.listOpen && !t.closest(".rf-select")) { form.listOpen = false; renderDrawer(); }
    if (t.closest(".js-inc") && form.qty < form.item.qty) { form.qty += 1; renderDrawer(); return; }
    if (t.closest(".js-dec") && form.qty > 1) { form.qty -= 1; renderDrawer(); return; }
    if (t.closest(".js-review")) {
      if (!form.reason) { form.error = true; renderDrawer(); return; }
      form.step = "review"; renderDrawer(); body.scrollTop = 0; return;
    }
    if (t.closest(".js-edit")) { form.step = "form"; renderDrawer(); return; }
    if (t.closest(".js-confirm")) {
      var rma = "R-" + form.order.no.slice(2) + "-" + (10 + GB.int(89));
      returned[form.item.id] = rma;
      GB.incr("returns_submitted");
      GB.set({
        "return.item": form.item.id,
        "return.order": form.order.no,
        "return.qty": form.qty,
        "return.reason": form.reason,
        "return.refund_to": form.refund,
        "return.method": form.method,
        "return.amount": Math.round(refundAmount() * 100) / 100
      });
      form.step = "done";
      renderDrawer();
      render();
      return;
    }
  });
  drawer.addEventListener("change", function (e) {
    if (!form) return;
    var t = e.target;
    if (t.type === "radio") {
      if (t.name.indexOf("refund-") === 0) form.refund = t.value;
      if (t.name.indexOf("method-") === 0) form.method = t.value;
      renderDrawer();
    }
  });
  drawer.addEventListener("input", function (e) {
    if (form && e.target.classList.contains("js-note")) form.note = e.target.value;
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape" || !form) return;
    if (form.listOpen) { form.listOpen = false; renderDrawer(); return; }
    closeDrawer();
  });
  scrim.addEventListener("click", closeDrawer);
})();
