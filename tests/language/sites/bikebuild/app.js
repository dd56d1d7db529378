/* Velora product page: gallery + variant configurator + mini cart drawer.
   Hand-rolled "theme" JS; renders into #product-app. */
(function () {
  "use strict";

  // ---------- catalogue data (seeded) ----------
  const MODELS = ["Metro 7", "Cityline 8", "Canalside 7", "Northway 9"];
  const model = GB.pick(MODELS);
  const PRODUCT = "Velora " + model;
  const basePrice = GB.pick([849, 899, 949, 999, 1049, 1099]);

  const COLOURS = GB.shuffle([
    { name: "Sage green", hex: "#9cae8c" },
    { name: "Forest green", hex: "#2f5a3c" },
    { name: "Midnight blue", hex: "#1f2a4a" },
    { name: "Chalk white", hex: "#ece9e1" },
    { name: "Graphite", hex: "#4a4d52" },
    { name: "Burnt orange", hex: "#c2602d" },
    { name: "Dusty rose", hex: "#c99a9a" },
  ]);
  // one premium paint carries a surcharge
  const premium = GB.pick(COLOURS.filter((c) => c.name !== "Sage green" && c.name !== "Forest green"));
  premium.surcharge = GB.pick([40, 50, 60]);

  const SIZES = [
    { code: "S", fit: "155–167 cm" },
    { code: "M", fit: "165–178 cm" },
    { code: "L", fit: "176–188 cm" },
    { code: "XL", fit: "186–198 cm" },
  ];
  const soldOut = GB.pick(["S", "L", "XL"]);
  const lowStock = GB.pick(SIZES.filter((s) => s.code !== soldOut && s.code !== "M")).code;

  const ADDONS = GB.shuffle([
    { name: "Rear rack", desc: "Alloy pannier rack, 25 kg load, fits bags with standard hooks.", price: GB.pick([45, 49, 55]) },
    { name: "Front basket", desc: "Woven-look basket on a quick-release bar bracket.", price: GB.pick([35, 39, 42]) },
    { name: "Dynamo light set", desc: "Hub dynamo wheel with 60 lux front and standlight rear.", price: GB.pick([119, 129, 139]) },
    { name: "Battery light set", desc: "USB-C rechargeable front and rear lights, 400 lm.", price: GB.pick([39, 45, 49]) },
    { name: "Full mudguards", desc: "Full-length guards with a rubber mudflap.", price: GB.pick([29, 35, 39]) },
    { name: "Kickstand", desc: "Centre-mount, height adjustable, alloy.", price: GB.pick([19, 22, 25]) },
  ]);

  const UPSELLS = [
    { name: "Waterproof pannier bag", price: GB.pick([39, 42, 45]) },
    { name: "Sold Secure D-lock", price: GB.pick([35, 39, 44]) },
  ];

  // the preselected colour is never Sage green, so a visitor has to pick it
  const defaultColour = GB.pick(COLOURS.filter((c) => c.name !== "Sage green"));

  // ---------- state ----------
  const ui = {
    colour: defaultColour.name,
    size: null,
    addons: new Set(),
    qty: 1,
    image: 0,
    sizeError: "",
  };
  const basket = [];

  const money = (n) => "£" + n.toLocaleString("en-GB", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const colourBy = (name) => COLOURS.find((c) => c.name === name);
  const cls = GB.uid("css"); // generated class hash, as CSS-in-JS themes emit

  function unitPrice() {
    let p = basePrice + (colourBy(ui.colour).surcharge || 0);
    for (const a of ADDONS) if (ui.addons.has(a.name)) p += a.price;
    return p;
  }

  // ---------- bike artwork (svg) ----------
  const VIEWS = [
    { label: "Side view", vb: "0 0 400 260", bg: "#f3f1ec" },
    { label: "Drivetrain detail", vb: "150 110 170 110", bg: "#eef0f2" },
    { label: "Cockpit", vb: "230 20 150 100", bg: "#f2efe9" },
    { label: "On the towpath", vb: "-30 -20 460 300", bg: "#dfe8dc" },
  ];
  function bikeSvg(hex, view, extras) {
    const rack = extras.has("Rear rack") ? '<path d="M70 120 L160 120 M80 120 L95 180 M150 120 L130 105" stroke="#333" stroke-width="4" fill="none"/>' : "";
    const light = extras.has("Dynamo light set") || extras.has("Battery light set") ? '<rect x="318" y="96" width="14" height="9" rx="3" fill="#f5d36b" stroke="#333"/>' : "";
    const basketArt = extras.has("Front basket") ? '<rect x="318" y="70" width="46" height="30" rx="4" fill="#c9a46c" stroke="#7a5a2c"/>' : "";
    const guards = extras.has("Full mudguards") ? '<path d="M40 180 A60 60 0 0 1 140 140" stroke="#222" stroke-width="5" fill="none"/><path d="M260 140 A60 60 0 0 1 360 180" stroke="#222" stroke-width="5" fill="none"/>' : "";
    return (
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${view.vb}" preserveAspectRatio="xMidYMid meet">` +
      `<rect x="-100" y="-100" width="700" height="500" fill="${view.bg}"/>` +
      `<circle cx="100" cy="190" r="58" fill="none" stroke="#222" stroke-width="7"/>` +
      `<circle cx="300" cy="190" r="58" fill="none" stroke="#222" stroke-width="7"/>` +
      `<circle cx="100" cy="190" r="5" fill="#555"/><circle cx="300" cy="190" r="5" fill="#555"/>` +
      guards +
      `<path d="M100 190 L180 190 L150 110 Z M180 190 L280 105 L150 110 M280 105 L300 190" fill="none" stroke="${hex}" stroke-width="9" stroke-linejoin="round"/>` +
      `<path d="M150 110 L145 90 M128 86 L165 86" stroke="#222" stroke-width="7" stroke-linecap="round"/>` +
      `<path d="M280 105 L285 75 L315 70" stroke="#222" stroke-width="6" fill="none" stroke-linecap="round"/>` +
      `<circle cx="180" cy="190" r="14" fill="none" stroke="#444" stroke-width="4"/>` +
      rack + light + basketArt +
      `</svg>`
    );
  }
  const svgUrl = (s) => "data:image/svg+xml;charset=utf-8," + encodeURIComponent(s);

  // ---------- render ----------
  const app = document.getElementById("product-app");
  document.querySelector(".js-crumb").textContent = PRODUCT;

  app.innerHTML = `
    <div class="product__media ${cls}">
      <div class="gallery" data-gallery>
        <div class="gallery__viewport">
          <img class="gallery__main js-main-img" alt="">
          <button type="button" class="gallery__arrow gallery__arrow--prev js-prev" aria-label="Previous slide">
            <svg viewBox="0 0 24 24" width="22" height="22"><path d="M15 5l-7 7 7 7" fill="none" stroke="currentColor" stroke-width="2.5"/></svg>
          </button>
          <button type="button" class="gallery__arrow gallery__arrow--next js-next">
            <svg viewBox="0 0 24 24" width="22" height="22"><path d="M9 5l7 7-7 7" fill="none" stroke="currentColor" stroke-width="2.5"/></svg>
          </button>
          <span class="gallery__counter js-counter"></span>
        </div>
        <ul class="gallery__thumbs js-thumbs"></ul>
      </div>
    </div>
    <div class="product__info">
      <p class="product__vendor">Velora Cycles</p>
      <h1 class="product__title">${PRODUCT}</h1>
      <div class="product__rating"><span class="stars" aria-hidden="true">★★★★☆</span> <a href="#reviews">${GB.range(28, 140)} reviews</a></div>
      <div class="price">
        <span class="price__amount js-price"></span>
        <span class="price__note">Tax included. <u>Free delivery</u> in 3–5 days.</span>
      </div>

      <div class="option-block" data-option="colour">
        <div class="option-block__head">
          <h2 class="option-block__title">Frame colour</h2>
          <span class="option-block__value js-colour-label"></span>
        </div>
        <div class="swatches js-swatches"></div>
      </div>

      <div class="option-block" data-option="size">
        <div class="option-block__head">
          <h2 class="option-block__title">Frame size</h2>
          <span class="option-block__value js-size-label"></span>
          <details class="size-guide">
            <summary>Size guide</summary>
            <table>
              <tr><th>Size</th><th>Rider height</th></tr>
              ${SIZES.map((s) => `<tr><td>${s.code}</td><td>${s.fit}</td></tr>`).join("")}
            </table>
          </details>
        </div>
        <div class="chips js-chips"></div>
        <p class="form-error js-size-error" hidden></p>
      </div>

      <div class="option-block" data-option="addons">
        <div class="option-block__head">
          <h2 class="option-block__title">Add-ons</h2>
          <span class="option-block__value">Fitted and adjusted before dispatch</span>
        </div>
        <div class="addon-grid js-addons"></div>
      </div>

      <div class="buy-row">
        <div class="qty-wrap">
          <span class="qty-wrap__label">Quantity</span>
          <div class="qty">
            <button type="button" class="qty__btn js-qty-minus" aria-label="Decrease quantity">−</button>
            <input type="number" class="qty__input js-qty" name="quantity" value="1" min="1" max="5" inputmode="numeric">
            <button type="button" class="qty__btn js-qty-plus">+</button>
          </div>
        </div>
        <div class="total">
          <span class="total__label">Total</span>
          <span class="total__amount js-total"></span>
        </div>
      </div>
      <p class="form-error js-buy-error" hidden></p>
      <button type="button" class="btn btn--primary btn--full js-add">
        <span class="btn__text">Add to basket</span>
      </button>
      <p class="klarna-note">Or 3 interest-free payments of <span class="js-instalment"></span></p>

      <div class="accordion">
        <details><summary>Specification</summary>
          <ul class="spec">
            <li>6061 alloy frame, internal cable routing</li>
            <li>Shimano Nexus ${GB.pick([7, 8])}-speed hub gear</li>
            <li>Hydraulic disc brakes</li>
            <li>700×40c puncture-resistant tyres</li>
          </ul>
        </details>
        <details><summary>Delivery &amp; returns</summary><p>Delivered 95% built in a recyclable box. Free returns within 30 days.</p></details>
        <details id="reviews"><summary>Reviews</summary><p>“Perfect for the daily commute.” — Hannah, Sheffield</p></details>
      </div>
    </div>
  `;

  const $ = (sel, root = document) => root.querySelector(sel);

  // gallery
  function renderGallery() {
    const hex = colourBy(ui.colour).hex;
    const main = $(".js-main-img");
    main.src = svgUrl(bikeSvg(hex, VIEWS[ui.image], ui.addons));
    main.alt = "";
    $(".js-counter").textContent = `${ui.image + 1} / ${VIEWS.length}`;
    $(".js-thumbs").innerHTML = VIEWS.map(
      (v, i) => `<li class="gallery__thumb${i === ui.image ? " is-active" : ""}" data-index="${i}">
        <img src="${svgUrl(bikeSvg(hex, v, ui.addons))}" alt="" width="84" height="56"></li>`
    ).join("");
  }
  $(".js-prev").addEventListener("click", () => { ui.image = (ui.image + VIEWS.length - 1) % VIEWS.length; renderGallery(); });
  $(".js-next").addEventListener("click", () => { ui.image = (ui.image + 1) % VIEWS.length; renderGallery(); });
  $(".js-thumbs").addEventListener("click", (e) => {
    const li = e.target.closest(".gallery__thumb");
    if (!li) return;
    ui.image = +li.dataset.index;
    renderGallery();
  });

  // colour swatches
  function renderSwatches() {
    $(".js-swatches").innerHTML = COLOURS.map((c) => `
      <button type="button" class="swatch${c.name === ui.colour ? " swatch--active" : ""}"
        style="--swatch:${c.hex}" title="${c.name}" aria-label="${c.name}" data-colour="${c.name}">
        ${c.surcharge ? '<span class="swatch__badge" aria-hidden="true">+</span>' : ""}
      </button>`).join("");
    setColourLabel(ui.colour);
  }
  function setColourLabel(name) {
    const c = colourBy(name);
    $(".js-colour-label").textContent = "Colour: " + name + (c.surcharge ? ` (+${money(c.surcharge)})` : "");
  }
  const swatchWrap = $(".js-swatches");
  swatchWrap.addEventListener("click", (e) => {
    const b = e.target.closest(".swatch");
    if (!b) return;
    ui.colour = b.dataset.colour;
    renderSwatches();
    renderGallery();
    renderPrice();
  });
  // hover preview, as many themes do: the label shows the hovered colour until the pointer leaves
  swatchWrap.addEventListener("mouseover", (e) => {
    const b = e.target.closest(".swatch");
    if (b) setColourLabel(b.dataset.colour);
  });
  swatchWrap.addEventListener("mouseleave", () => setColourLabel(ui.colour));

  // size chips
  function renderChips() {
    $(".js-chips").innerHTML = SIZES.map((s) => {
      const classes = ["chip"];
      if (s.code === ui.size) classes.push("chip--active");
      if (s.code === soldOut) classes.push("chip--soldout");
      return `<button type="button" class="${classes.join(" ")}" data-size="${s.code}">${s.code}${
        s.code === lowStock ? '<span class="chip__dot" title="Low stock"></span>' : ""}</button>`;
    }).join("");
    $(".js-size-label").textContent = ui.size ? "Size: " + ui.size : "Select a size";
    const err = $(".js-size-error");
    err.hidden = !ui.sizeError;
    err.innerHTML = ui.sizeError;
  }
  $(".js-chips").addEventListener("click", (e) => {
    const b = e.target.closest(".chip");
    if (!b) return;
    const code = b.dataset.size;
    if (code === soldOut) {
      ui.sizeError = `Sorry, size ${code} is sold out in every colour. <a href="#" class="link">Email me when it's back</a>`;
      GB.push("soldout_clicked", code);
      renderChips();
      return;
    }
    ui.size = code;
    ui.sizeError = code === lowStock ? `Only 2 left in size ${code}.` : "";
    $(".js-buy-error").hidden = true;
    renderChips();
  });

  // add-on cards with toggle switches
  function renderAddons() {
    $(".js-addons").innerHTML = ADDONS.map((a, i) => {
      const on = ui.addons.has(a.name);
      return `
      <div class="addon-card${on ? " addon-card--on" : ""}" data-addon="${a.name}">
        <div class="addon-card__body">
          <h3 class="addon-card__title">${a.name}</h3>
          <p class="addon-card__desc">${a.desc}</p>
          <span class="addon-card__price">+ ${money(a.price)}</span>
        </div>
        <label class="switch">
          <input type="checkbox" class="visually-hidden" ${on ? "checked" : ""} data-index="${i}">
          <span class="switch__track"><span class="switch__thumb"></span></span>
        </label>
      </div>`;
    }).join("");
  }
  $(".js-addons").addEventListener("change", (e) => {
    const input = e.target.closest("input[type=checkbox]");
    if (!input) return;
    const a = ADDONS[+input.dataset.index];
    if (input.checked) ui.addons.add(a.name); else ui.addons.delete(a.name);
    input.closest(".addon-card").classList.toggle("addon-card--on", input.checked);
    renderGallery();
    renderPrice();
  });

  // quantity
  const qtyInput = $(".js-qty");
  function clampQty(v) {
    const n = parseInt(v, 10);
    if (!Number.isFinite(n) || n < 1) return 1;
    return Math.min(n, 5);
  }
  qtyInput.addEventListener("input", () => {
    if (qtyInput.value === "") return;
    ui.qty = clampQty(qtyInput.value);
    renderPrice();
  });
  qtyInput.addEventListener("change", () => {
    ui.qty = clampQty(qtyInput.value);
    qtyInput.value = ui.qty;
    renderPrice();
  });
  $(".js-qty-minus").addEventListener("click", () => { ui.qty = Math.max(1, ui.qty - 1); qtyInput.value = ui.qty; renderPrice(); });
  $(".js-qty-plus").addEventListener("click", () => { ui.qty = Math.min(5, ui.qty + 1); qtyInput.value = ui.qty; renderPrice(); });

  function renderPrice() {
    const u = unitPrice();
    $(".js-price").textContent = money(u);
    $(".js-total").textContent = money(u * ui.qty);
    $(".js-instalment").textContent = money(Math.round((u * ui.qty * 100) / 3) / 100);
  }

  // ---------- add to basket ----------
  const addBtn = $(".js-add");
  addBtn.addEventListener("click", () => {
    if (addBtn.classList.contains("is-loading")) return;
    if (!ui.size) {
      const err = $(".js-buy-error");
      err.textContent = "Please choose a frame size.";
      err.hidden = false;
      return;
    }
    ui.qty = clampQty(qtyInput.value);
    qtyInput.value = ui.qty;
    const line = {
      colour: ui.colour,
      size: ui.size,
      addons: ADDONS.filter((a) => ui.addons.has(a.name)).map((a) => a.name).sort(),
      qty: ui.qty,
    };
    const price = unitPrice();
    addBtn.classList.add("is-loading");
    addBtn.querySelector(".btn__text").textContent = "Adding…";
    setTimeout(() => {
      GB.push("added", line);
      const same = basket.find((l) => l.kind === "bike" && JSON.stringify(l.cfg) === JSON.stringify({ ...line, qty: 0 }));
      if (same) { same.qty += line.qty; } else {
        basket.push({ kind: "bike", cfg: { ...line, qty: 0 }, qty: line.qty, price, hex: colourBy(line.colour).hex });
      }
      addBtn.classList.remove("is-loading");
      addBtn.querySelector(".btn__text").textContent = "Add to basket";
      openDrawer(true);
    }, 450);
  });

  // ---------- mini cart drawer ----------
  const drawer = $(".js-cart-drawer");
  const overlay = $(".js-drawer-overlay");

  function basketState() {
    return basket.map((l) => (l.kind === "bike"
      ? { colour: l.cfg.colour, size: l.cfg.size, addons: l.cfg.addons, qty: l.qty }
      : { item: l.name, qty: l.qty }));
  }

  function renderDrawer(justAdded) {
    const count = basket.reduce((n, l) => n + l.qty, 0);
    const subtotal = basket.reduce((n, l) => n + l.qty * l.price, 0);
    const badge = $(".js-cart-count");
    badge.textContent = count;
    badge.hidden = count === 0;
    drawer.innerHTML = `
      <div class="cart-drawer__header">
        <h2 class="cart-drawer__title">Your basket <span class="muted">(${count})</span></h2>
        <button type="button" class="cart-drawer__close js-drawer-close"><svg viewBox="0 0 24 24" width="20" height="20"><path d="M5 5l14 14M19 5L5 19" stroke="currentColor" stroke-width="2"/></svg></button>
      </div>
      ${justAdded ? '<div class="cart-drawer__notice">✓ Added to your basket</div>' : ""}
      <div class="cart-drawer__items">
        ${basket.length === 0 ? '<p class="muted">Your basket is empty.</p>' : basket.map((l) => l.kind === "bike" ? `
          <div class="cart-item">
            <img class="cart-item__img" src="${svgUrl(bikeSvg(l.hex, VIEWS[0], new Set(l.cfg.addons)))}" alt="">
            <div class="cart-item__info">
              <p class="cart-item__name">${PRODUCT}</p>
              <p class="cart-item__variant">${l.cfg.colour} / ${l.cfg.size}</p>
              ${l.cfg.addons.map((a) => `<p class="cart-item__addon">+ ${a}</p>`).join("")}
              <p class="cart-item__qty">Qty: ${l.qty}</p>
            </div>
            <span class="cart-item__price">${money(l.price * l.qty)}</span>
          </div>` : `
          <div class="cart-item cart-item--small">
            <div class="cart-item__info"><p class="cart-item__name">${l.name}</p><p class="cart-item__qty">Qty: ${l.qty}</p></div>
            <span class="cart-item__price">${money(l.price * l.qty)}</span>
          </div>`).join("")}
      </div>
      <div class="cart-drawer__upsell">
        <p class="cart-drawer__upsell-title">Riders also bought</p>
        ${UPSELLS.map((u, i) => `
          <div class="upsell">
            <span class="upsell__name">${u.name}</span>
            <span class="upsell__price">${money(u.price)}</span>
            <button type="button" class="btn btn--small js-upsell" data-index="${i}">Add</button>
          </div>`).join("")}
      </div>
      <div class="cart-drawer__footer">
        <div class="cart-drawer__subtotal"><span>Subtotal</span><span>${money(subtotal)}</span></div>
        <p class="muted small">Shipping and discount codes calculated at checkout.</p>
        <button type="button" class="btn btn--primary btn--full js-checkout" ${basket.length ? "" : "disabled"}>Checkout</button>
        <button type="button" class="btn btn--link btn--full js-continue">Continue shopping</button>
      </div>`;
  }

  function openDrawer(justAdded) {
    renderDrawer(justAdded);
    drawer.classList.add("is-open");
    overlay.classList.add("is-visible");
    drawer.setAttribute("aria-hidden", "false");
    document.body.classList.add("drawer-open");
  }
  function closeDrawer() {
    drawer.classList.remove("is-open");
    overlay.classList.remove("is-visible");
    drawer.setAttribute("aria-hidden", "true");
    document.body.classList.remove("drawer-open");
  }
  overlay.addEventListener("click", closeDrawer);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && drawer.classList.contains("is-open")) closeDrawer(); });
  $(".js-cart-toggle").addEventListener("click", () => openDrawer(false));

  drawer.addEventListener("click", (e) => {
    if (e.target.closest(".js-drawer-close") || e.target.closest(".js-continue")) { closeDrawer(); return; }
    const up = e.target.closest(".js-upsell");
    if (up) {
      const u = UPSELLS[+up.dataset.index];
      const existing = basket.find((l) => l.kind === "extra" && l.name === u.name);
      if (existing) existing.qty += 1; else basket.push({ kind: "extra", name: u.name, qty: 1, price: u.price });
      GB.push("added", { item: u.name, qty: 1 });
      renderDrawer(false);
      return;
    }
    const co = e.target.closest(".js-checkout");
    if (co && !co.disabled) {
      co.disabled = true;
      co.textContent = "Redirecting…";
      const lines = basketState();
      try {
        sessionStorage.setItem("velora_checkout", JSON.stringify({ product: PRODUCT, lines: basket, total: basket.reduce((n, l) => n + l.qty * l.price, 0) }));
      } catch (err) { /* private mode */ }
      Promise.resolve(GB.set({ checkout: { lines } })).then(() => {
        location.href = GB.url("checkout.html");
      });
    }
  });

  // ---------- boot ----------
  renderGallery();
  renderSwatches();
  renderChips();
  renderAddons();
  renderPrice();
  renderDrawer(false);
})();
