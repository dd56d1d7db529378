// Shared parts of the mall: catalogue, a cart kept in this origin's localStorage (each episode
// runs in a fresh browser context), and the header. Layouts are fixed so that controls stay put
// between steps; the seed varies ids, catalogue order and prices only.
(function () {
  "use strict";
  const PRODUCTS = [
    { id: "linen-shirt", name: "Linen shirt", price: 45, sizes: ["S", "M", "L", "XL"], colours: ["White", "Sand"] },
    { id: "linen-trousers", name: "Linen trousers", price: 60, sizes: ["S", "M", "L", "XL"], colours: ["Sand", "Navy"] },
    { id: "canvas-tote", name: "Canvas tote", price: 18, sizes: [], colours: ["Natural", "Black"] },
    { id: "canvas-sneakers", name: "Canvas sneakers", price: 55, sizes: ["38", "40", "42", "44"], colours: ["White", "Black"] },
    { id: "wool-socks", name: "Wool socks", price: 9, sizes: ["S/M", "L/XL"], colours: ["Navy", "Grey", "Mustard"] },
    { id: "sock-bundle", name: "Sock bundle (3 pairs)", price: 24, sizes: ["S/M", "L/XL"], colours: ["Mixed"] },
    { id: "wool-beanie", name: "Wool beanie", price: 22, sizes: [], colours: ["Grey", "Rust"] },
    { id: "rain-jacket", name: "Rain jacket", price: 120, sizes: ["S", "M", "L", "XL"], colours: ["Yellow", "Navy"] },
    { id: "leather-belt", name: "Leather belt", price: 35, sizes: ["85", "95", "105"], colours: ["Brown", "Black"] },
    { id: "cotton-tee", name: "Cotton tee", price: 19, sizes: ["S", "M", "L", "XL"], colours: ["White", "Grey"] },
    { id: "silk-scarf", name: "Silk scarf", price: 48, sizes: [], colours: ["Blue", "Red"] },
    { id: "travel-mug", name: "Travel mug", price: 16, sizes: [], colours: ["Steel", "Green"] },
  ];
  const KEY = "mall.cart";
  const cart = {
    lines() { try { return JSON.parse(localStorage.getItem(KEY) || "[]"); } catch { return []; } },
    save(lines) {
      localStorage.setItem(KEY, JSON.stringify(lines));
      GB.set({ "cart.lines": lines.length, "cart.units": lines.reduce((n, l) => n + l.qty, 0) });
    },
    add(line) {
      const lines = cart.lines();
      const same = lines.find((l) => l.id === line.id && l.size === line.size && l.colour === line.colour);
      if (same) same.qty += line.qty; else lines.push(line);
      cart.save(lines);
    },
    clear() { localStorage.removeItem(KEY); },
  };
  const product = (id) => PRODUCTS.find((p) => p.id === id) || null;
  // Prices vary a little with the seed (the same on every page of one episode).
  const bump = GB.seed % 5;
  const price = (p) => p.price + bump;

  function header() {
    const h = document.createElement("header");
    h.className = "site";
    const brand = document.createElement("a");
    brand.className = "brand";
    brand.href = GB.url("/mall/index.html");
    brand.textContent = "Corner Mall";
    const nav = document.createElement("nav");
    nav.setAttribute("aria-label", "Shop");
    const products = document.createElement("a");
    products.href = GB.url("/mall/index.html");
    products.textContent = "Products";
    const cartLink = document.createElement("a");
    cartLink.href = GB.url("/mall/cart.html");
    cartLink.id = GB.uid("cart");
    const units = cart.lines().reduce((n, l) => n + l.qty, 0);
    cartLink.textContent = `Cart (${units})`;
    nav.append(products, cartLink);
    h.append(brand, nav);
    document.body.prepend(h);
    return cartLink;
  }
  window.Mall = { PRODUCTS, cart, product, price, header };
})();
