// Shared parts of Ridgeline Outfitters: the catalogue, the bag (kept in this origin's
// localStorage, fresh for every episode's browser context), money, and the header with its
// search box. The seed varies prices (one offset for the whole shop, so price order is fixed),
// review counts, ids and classes; each page varies its own layout offsets and orders.
(function () {
  "use strict";
  const SIZES = ["XS", "S", "M", "L", "XL", "XXL"];
  const TOPS = ["Charcoal", "Forest", "Navy", "Rust"];
  // [id, name, brand, category, price (GBP), rating, colours, sizes, in stock, extra search words, added (days ago)]
  const RAW = [
    ["fellside-merino-150-tee", "Fellside Merino 150 Tee", "Fellside", "Base layers", 38, 4.4, ["Charcoal", "Sky", "White"], SIZES, true, "wool short sleeve", 40],
    ["corrie-merino-blend-crew", "Corrie Merino Blend Crew", "Corrie", "Base layers", 44, 4.1, ["Black", "Slate"], SIZES, true, "wool long sleeve", 90],
    ["kestrel-merino-200-crew", "Kestrel Merino 200 Crew", "Kestrel", "Base layers", 52, 4.6, TOPS, SIZES, true, "wool long sleeve", 12],
    ["northwind-merino-200-leggings", "Northwind Merino 200 Leggings", "Northwind", "Base layers", 58, 4.3, ["Black", "Navy"], SIZES, true, "wool tights bottoms", 60],
    ["fellside-merino-200-long-sleeve", "Fellside Merino 200 Long Sleeve", "Fellside", "Base layers", 64, 4.5, ["Charcoal", "Moss"], SIZES, true, "wool", 25],
    ["tarn-merino-230-crew", "Tarn Merino 230 Crew", "Tarn", "Base layers", 70, 4.2, ["Charcoal", "Ochre"], SIZES, true, "wool long sleeve", 120],
    ["corrie-merino-230-leggings", "Corrie Merino 230 Leggings", "Corrie", "Base layers", 76, 4.0, ["Black"], SIZES, false, "wool tights bottoms", 75],
    ["kestrel-merino-200-zip-neck", "Kestrel Merino 200 Zip Neck", "Kestrel", "Base layers", 82, 4.7, TOPS, SIZES, true, "wool quarter zip long sleeve", 8],
    ["northwind-merino-260-zip-neck", "Northwind Merino 260 Zip Neck", "Northwind", "Base layers", 89, 4.4, ["Navy", "Forest"], SIZES, true, "wool quarter zip long sleeve", 33],
    ["kestrel-merino-260-zip-neck", "Kestrel Merino 260 Zip Neck", "Kestrel", "Base layers", 96, 4.8, TOPS, SIZES, true, "wool quarter zip long sleeve", 4],
    ["northwind-synthetic-base-crew", "Northwind Synthetic Base Crew", "Northwind", "Base layers", 30, 3.9, ["Black", "Blue"], SIZES, true, "polyester wicking", 200],
    ["corrie-thermal-leggings", "Corrie Thermal Leggings", "Corrie", "Base layers", 28, 3.8, ["Black"], SIZES, true, "polyester tights", 150],
    ["kestrel-merino-hiking-socks", "Kestrel Merino Hiking Socks", "Kestrel", "Socks", 18, 4.6, ["Grey", "Green"], ["S", "M", "L"], true, "wool walking", 20],
    ["fellside-merino-liner-socks", "Fellside Merino Liner Socks", "Fellside", "Socks", 12, 4.2, ["Black"], ["S", "M", "L"], true, "wool", 55],
    ["corrie-walking-socks", "Corrie Walking Socks (2 pairs)", "Corrie", "Socks", 16, 4.0, ["Grey"], ["S", "M", "L"], true, "cotton", 180],
    ["northwind-merino-midweight-hoodie", "Northwind Merino Midweight Hoodie", "Northwind", "Mid layers", 95, 4.5, ["Charcoal", "Navy"], SIZES, true, "wool hooded", 15],
    ["corrie-merino-fleece-jacket", "Corrie Merino Fleece Jacket", "Corrie", "Mid layers", 110, 4.3, ["Forest", "Black"], SIZES, true, "wool", 70],
    ["corrie-grid-fleece", "Corrie Grid Fleece", "Corrie", "Mid layers", 65, 4.4, ["Rust", "Navy"], SIZES, true, "polyester", 45],
    ["fellside-microfleece-pullover", "Fellside Microfleece Pullover", "Fellside", "Mid layers", 40, 4.1, ["Navy", "Grey"], SIZES, true, "polyester", 300],
    ["tarn-merino-beanie", "Tarn Merino Beanie", "Tarn", "Accessories", 24, 4.7, ["Ochre", "Charcoal"], [], true, "wool hat", 35],
    ["kestrel-merino-liner-gloves", "Kestrel Merino Liner Gloves", "Kestrel", "Accessories", 22, 4.0, ["Black"], ["S/M", "L/XL"], true, "wool", 65],
    ["fellside-sun-hat", "Fellside Sun Hat", "Fellside", "Accessories", 22, 4.2, ["Stone"], ["S/M", "L/XL"], true, "", 100],
    ["kestrel-trekking-poles", "Kestrel Trekking Poles (pair)", "Kestrel", "Accessories", 75, 4.5, ["Black"], [], true, "hiking", 140],
    ["northwind-neck-tube", "Northwind Neck Tube", "Northwind", "Accessories", 14, 4.1, ["Blue", "Black"], [], true, "buff", 160],
    ["tarn-headtorch-300", "Tarn Headtorch 300", "Tarn", "Accessories", 35, 4.3, ["Black"], [], false, "lamp light", 80],
    ["kestrel-stormline-jacket", "Kestrel Stormline Waterproof Jacket", "Kestrel", "Jackets", 180, 4.6, ["Navy", "Rust"], SIZES, true, "rain shell", 10],
    ["fellside-packable-rain-jacket", "Fellside Packable Rain Jacket", "Fellside", "Jackets", 95, 4.2, ["Yellow", "Navy"], SIZES, true, "waterproof shell", 50],
    ["northwind-down-jacket", "Northwind Down Jacket", "Northwind", "Jackets", 160, 4.7, ["Black", "Forest"], SIZES, true, "insulated puffer", 30],
    ["tarn-insulated-gilet", "Tarn Insulated Gilet", "Tarn", "Jackets", 85, 4.0, ["Navy"], SIZES, true, "vest", 110],
    ["kestrel-trek-trousers", "Kestrel Trek Trousers", "Kestrel", "Trousers", 70, 4.4, ["Stone", "Black"], ["28", "30", "32", "34", "36"], true, "pants hiking", 22],
    ["northwind-softshell-trousers", "Northwind Softshell Trousers", "Northwind", "Trousers", 85, 4.3, ["Black"], ["28", "30", "32", "34", "36"], true, "pants", 66],
    ["tarn-convertible-trousers", "Tarn Convertible Trousers", "Tarn", "Trousers", 60, 3.9, ["Stone"], ["28", "30", "32", "34", "36"], true, "pants zip-off", 95],
  ];
  const PRODUCTS = RAW.map(([id, name, brand, category, price, rating, colours, sizes, stock, words, age], i) => ({
    id, name, brand, category, base: price, rating, colours, sizes, stock, age, order: i,
    words: `${name} ${brand} ${category} ${words}`.toLowerCase(),
  }));
  const CATEGORIES = ["Base layers", "Mid layers", "Jackets", "Trousers", "Socks", "Accessories"];
  const BRANDS = ["Corrie", "Fellside", "Kestrel", "Northwind", "Tarn"];
  // One offset for the whole shop and episode: prices differ with the seed, their order does not.
  const bump = GB.seed % 5;
  const price = (p) => p.base + bump;
  const money = (n) => `£${n.toFixed(2)}`;
  // Review counts differ with the seed, the same on every page of one episode.
  const reviews = (p) => 7 + ((p.order * 37 + GB.seed * 11) % 180);
  const product = (id) => PRODUCTS.find((p) => p.id === id) || null;

  const KEY = "outfitter.bag";
  const bag = {
    read() { try { return JSON.parse(localStorage.getItem(KEY) || "{}"); } catch { return {}; } },
    write(b) { localStorage.setItem(KEY, JSON.stringify(b)); },
    lines() { return bag.read().lines || []; },
    units() { return bag.lines().reduce((n, l) => n + l.qty, 0); },
    // The bag's lines as the server records them: product id, options, quantity.
    record(lines) {
      return GB.set({ "cart.lines": lines.map((l) => ({ id: l.id, size: l.size, colour: l.colour, qty: l.qty })) });
    },
    saveLines(lines) { const b = bag.read(); b.lines = lines; bag.write(b); return bag.record(lines); },
    add(line) {
      const lines = bag.lines();
      const same = lines.find((l) => l.id === line.id && l.size === line.size && l.colour === line.colour);
      if (same) same.qty = Math.min(10, same.qty + line.qty); else lines.push(line);
      return bag.saveLines(lines);
    },
    set(key, value) { const b = bag.read(); b[key] = value; bag.write(b); },
    clear() { localStorage.removeItem(KEY); },
  };
  const COUPONS = { TRAIL10: { percent: 10, text: "10% off your order" } };
  const SHIPPING = {
    standard: { name: "Standard delivery", note: "3–5 working days", cost: 4.95 },
    express: { name: "Express delivery", note: "next working day", cost: 9.95 },
    collect: { name: "Click & collect", note: "Keswick store, 2 days", cost: 0 },
  };
  function totals(lines, coupon, shipping) {
    const subtotal = lines.reduce((n, l) => n + price(product(l.id)) * l.qty, 0);
    const discount = coupon && COUPONS[coupon] ? Math.round(subtotal * COUPONS[coupon].percent) / 100 : 0;
    const ship = SHIPPING[shipping || "standard"].cost;
    return { subtotal, discount, ship, total: subtotal - discount + ship };
  }

  // The header: brand, the search box (on the results page it refines in place; elsewhere it
  // opens the results page with the query), Help, and the bag link with its count.
  function header(onSearch) {
    const h = document.createElement("header");
    h.className = "site";
    const brand = document.createElement("a");
    brand.className = "brand";
    brand.href = GB.url("/outfitter/index.html");
    brand.textContent = "Ridgeline Outfitters";
    const form = document.createElement("form");
    form.setAttribute("role", "search");
    form.className = GB.uid("search");
    const input = document.createElement("input");
    input.type = "search";
    input.name = "q";
    input.id = GB.uid("q");
    input.placeholder = "Search products";
    input.setAttribute("aria-label", "Search products");
    input.autocomplete = "off";
    const go = document.createElement("button");
    go.type = "submit";
    go.textContent = "Search";
    // The field sits in its own box (as a framework's input component does), beside the button.
    const box = document.createElement("span");
    box.className = "box";
    box.append(input);
    form.append(box, go);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const q = input.value.trim();
      if (onSearch) onSearch(q);
      else location.href = GB.url("/outfitter/index.html", { q });
    });
    const nav = document.createElement("nav");
    nav.setAttribute("aria-label", "Account");
    const help = document.createElement("a");
    help.href = "#help";
    help.textContent = "Help";
    const bagLink = document.createElement("a");
    bagLink.href = GB.url("/outfitter/cart.html");
    bagLink.id = GB.uid("bag");
    bagLink.className = "bag";
    nav.append(help, bagLink);
    h.append(brand, form, nav);
    const strip = document.createElement("div");
    strip.className = "strip";
    strip.textContent = "Free standard delivery on orders over £120 · 60-day returns";
    // A seeded offset: the strip's height moves every page's content down by a few pixels.
    strip.style.paddingBlock = `${GB.range(4, 14)}px`;
    document.body.prepend(h, strip);
    const count = () => { bagLink.textContent = `Bag (${bag.units()})`; };
    count();
    return { input, bagLink, count };
  }
  window.Outfitter = { PRODUCTS, CATEGORIES, BRANDS, SIZES, COUPONS, SHIPPING, price, money, reviews,
                       product, bag, totals, header };
})();
