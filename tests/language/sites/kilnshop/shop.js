(function () {
  "use strict";
  // Art is a tiny inline SVG per product shape, tinted per product.
  const ART = {
    mug: '<path d="M20 28h44v36a12 12 0 0 1-12 12H32a12 12 0 0 1-12-12z" fill="C"/><path d="M64 36h6a9 9 0 0 1 0 18h-6" fill="none" stroke="C" stroke-width="6"/>',
    mugs: '<g fill="C"><path d="M6 34h26v26a8 8 0 0 1-8 8H14a8 8 0 0 1-8-8z"/><path d="M36 30h26v30a8 8 0 0 1-8 8H44a8 8 0 0 1-8-8z"/><path d="M66 34h26v26a8 8 0 0 1-8 8H74a8 8 0 0 1-8-8z"/></g>',
    bowl: '<path d="M8 40h84a42 30 0 0 1-84 0z" fill="C"/><rect x="36" y="68" width="28" height="6" rx="3" fill="C"/>',
    vase: '<path d="M42 12h16v14c12 8 18 20 18 34 0 16-12 26-26 26S24 76 24 60c0-14 6-26 18-34z" fill="C"/>',
    apron: '<path d="M34 10h32v18l14 10v50H20V38l14-10z" fill="C"/><rect x="36" y="52" width="28" height="16" rx="2" fill="#fff" opacity=".35"/>',
    spoon: '<ellipse cx="50" cy="26" rx="14" ry="18" fill="C"/><rect x="46" y="40" width="8" height="50" rx="4" fill="C"/>',
    pot: '<path d="M18 30h64l-8 56H26z" fill="C"/><rect x="12" y="22" width="76" height="12" rx="3" fill="C"/>',
    teapot: '<ellipse cx="48" cy="56" rx="30" ry="24" fill="C"/><path d="M78 50l16-12v8L80 64z" fill="C"/><rect x="40" y="26" width="16" height="8" rx="4" fill="C"/>',
    plate: '<circle cx="50" cy="50" r="38" fill="C"/><circle cx="50" cy="50" r="26" fill="#fff" opacity=".3"/>',
  };
  const PRODUCTS = [
    { id: "p1", title: "Speckled Stoneware Mug", price: 18, cat: "drink", art: "mug", tint: "#d9c9b4", color: "#8f7a62", added: 1 },
    { id: "p2", title: "Speckled Stoneware Mugs, Set of 4", price: 64, cat: "drink", art: "mugs", tint: "#e6dccf", color: "#8f7a62", added: 2 },
    { id: "p3", title: "Linen Apron", price: 36, cat: "kitchen", art: "apron", tint: "#dfe3d6", color: "#6f7d5c", added: 3 },
    { id: "p4", title: "Ash Glaze Serving Bowl", price: 48, cat: "table", art: "bowl", tint: "#d6dde0", color: "#5c7480", added: 4 },
    { id: "p5", title: "Celadon Bud Vase", price: 24, cat: "home", art: "vase", tint: "#d8e6df", color: "#6f9c8a", added: 5 },
    { id: "p6", title: "Olive Wood Spoon", price: 14, cat: "kitchen", art: "spoon", tint: "#eadfcd", color: "#9b7a4c", added: 6 },
    { id: "p7", title: "Terracotta Planter", price: 29, cat: "home", art: "pot", tint: "#f0d9cc", color: "#b8673f", added: 7 },
    { id: "p8", title: "Hand-thrown Teapot", price: 72, cat: "drink", art: "teapot", tint: "#e3dbe6", color: "#6c5a78", added: 8 },
    { id: "p9", title: "Dinner Plate, Oatmeal", price: 26, cat: "table", art: "plate", tint: "#efe6d8", color: "#b7a68a", added: 9 },
  ];
  GB.rand(); // the first draw of a seeded stream follows the seed closely; skip it
  for (const p of PRODUCTS) {
    p.rating = (GB.range(39, 49) / 10).toFixed(1);
    p.reviews = GB.range(8, 240);
    p.tag = GB.rand() < 0.25 ? GB.pick(["New", "Low stock", "Bestseller"]) : "";
  }
  const FEATURED = GB.shuffle(PRODUCTS.map((p) => p.id));
  const byId = Object.fromEntries(PRODUCTS.map((p) => [p.id, p]));
  const money = (n) => `£${n.toFixed(2)}`;

  const cart = new Map(); // id -> qty, in the order added
  let sortBy = "featured";
  let category = "";

  const grid = document.getElementById("grid");
  const count = document.getElementById("result-count");
  const badge = document.getElementById("cart-count");
  const cartBtn = document.getElementById("cart-btn");

  function sorted() {
    const list = FEATURED.map((id) => byId[id]).filter((p) => !category || p.cat === category);
    if (sortBy === "price-asc") list.sort((a, b) => a.price - b.price);
    else if (sortBy === "price-desc") list.sort((a, b) => b.price - a.price);
    else if (sortBy === "rating") list.sort((a, b) => b.rating - a.rating || b.reviews - a.reviews);
    else if (sortBy === "name") list.sort((a, b) => a.title.localeCompare(b.title));
    return list;
  }

  function stars(r) {
    const full = Math.round(Number(r));
    return "★".repeat(full) + "☆".repeat(5 - full);
  }

  function renderAction(p, slot) {
    slot.textContent = "";
    const qty = cart.get(p.id) || 0;
    if (!qty) {
      const add = document.createElement("button");
      add.type = "button";
      add.className = "btn btn--outline";
      add.textContent = "Add to cart";
      add.addEventListener("click", () => { cart.set(p.id, 1); changed(p, slot); });
      slot.appendChild(add);
      return;
    }
    const stepper = document.createElement("div");
    stepper.className = "stepper";
    stepper.innerHTML = '<button type="button" aria-label="Decrease quantity">−</button>' +
      `<output aria-live="polite">${qty} in cart</output>` +
      '<button type="button" aria-label="Increase quantity">+</button>';
    const [minus, plus] = stepper.querySelectorAll("button");
    minus.addEventListener("click", () => {
      if (qty <= 1) cart.delete(p.id); else cart.set(p.id, qty - 1);
      changed(p, slot);
    });
    plus.addEventListener("click", () => { cart.set(p.id, qty + 1); changed(p, slot); });
    slot.appendChild(stepper);
  }

  function changed(p, slot) {
    renderAction(p, slot);
    const focus = slot.querySelector("button:last-child") || slot.querySelector("button");
    if (focus) focus.focus();
    updateBadge();
  }

  function updateBadge() {
    let n = 0;
    for (const q of cart.values()) n += q;
    badge.textContent = String(n);
    badge.setAttribute("aria-label", `${n} item${n === 1 ? "" : "s"}`);
    badge.classList.remove("bump");
    void badge.offsetWidth;
    badge.classList.add("bump");
  }

  function render() {
    const list = sorted();
    grid.textContent = "";
    count.textContent = `${list.length} products`;
    for (const p of list) {
      const card = document.createElement("article");
      card.className = "product";
      const titleId = GB.uid("t");
      card.setAttribute("aria-labelledby", titleId);
      const art = ART[p.art].replaceAll("C", p.color);
      card.innerHTML =
        `<div class="product__media" style="background:${p.tint}">` +
        `<svg viewBox="0 0 100 100" aria-hidden="true">${art}</svg>` +
        (p.tag ? `<span class="tag">${p.tag}</span>` : "") + "</div>" +
        `<div class="product__body"><h3 class="product__title" id="${titleId}"><a href="#"></a></h3>` +
        `<div class="product__meta"><span class="price">${money(p.price)}</span>` +
        `<span class="rating"><span class="stars" aria-hidden="true">${stars(p.rating)}</span> ${p.rating} (${p.reviews})</span></div>` +
        '<div class="product__action"></div></div>';
      card.querySelector(".product__title a").textContent = p.title;
      renderAction(p, card.querySelector(".product__action"));
      grid.appendChild(card);
    }
  }

  const sortSelect = document.getElementById("sort");
  sortSelect.addEventListener("change", () => {
    sortBy = sortSelect.value;
    GB.set({ sort: sortBy });
    render();
  });
  for (const chip of document.querySelectorAll(".chip")) chip.addEventListener("click", () => {
    for (const c of document.querySelectorAll(".chip")) c.setAttribute("aria-pressed", String(c === chip));
    category = chip.dataset.cat;
    render();
  });

  // Cart drawer.
  const drawer = document.getElementById("drawer");
  const scrim = document.getElementById("scrim");
  const body = document.getElementById("drawer-body");
  const foot = document.getElementById("drawer-foot");
  function openCart() {
    body.textContent = "";
    let total = 0;
    if (!cart.size) body.innerHTML = '<p class="empty">Your cart is empty.</p>';
    for (const [id, qty] of cart) {
      const p = byId[id];
      total += p.price * qty;
      const line = document.createElement("div");
      line.className = "line";
      line.innerHTML = '<div><div class="line__title"></div><div class="line__qty"></div></div><strong></strong>';
      line.querySelector(".line__title").textContent = p.title;
      line.querySelector(".line__qty").textContent = `Qty ${qty}`;
      line.querySelector("strong").textContent = money(p.price * qty);
      body.appendChild(line);
    }
    document.getElementById("subtotal").textContent = money(total);
    foot.hidden = !cart.size;
    drawer.hidden = scrim.hidden = false;
    cartBtn.setAttribute("aria-expanded", "true");
    document.getElementById("drawer-close").focus();
  }
  function closeCart() {
    drawer.hidden = scrim.hidden = true;
    cartBtn.setAttribute("aria-expanded", "false");
    cartBtn.focus();
  }
  cartBtn.addEventListener("click", openCart);
  document.getElementById("drawer-close").addEventListener("click", closeCart);
  document.getElementById("keep-shopping").addEventListener("click", closeCart);
  scrim.addEventListener("click", closeCart);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !drawer.hidden) closeCart(); });

  document.getElementById("checkout").addEventListener("click", () => {
    const items = [...cart].map(([id, qty]) => ({ title: byId[id].title, qty }))
      .sort((a, b) => a.title.localeCompare(b.title));
    GB.set({ order: { items } });
    const ref = "KC-" + GB.range(100000, 999999);
    cart.clear();
    updateBadge();
    render();
    foot.hidden = true;
    body.innerHTML = '<div class="confirm"><h3>Thank you!</h3><p></p></div>';
    body.querySelector("p").textContent = `Order ${ref} is confirmed. We'll email you when it ships.`;
  });

  render();
  updateBadge();
  badge.classList.remove("bump");
})();
