// Shared parts of the "moving" site: a sticky header whose height varies with the seed, and a
// promotional banner inserted at the top of <main> after a seeded 200–800 ms delay (layout shift).
(function () {
  "use strict";
  const headerHeight = GB.range(96, 130);
  const bannerDelay = GB.range(200, 800);
  const bannerHeight = GB.range(90, 140);

  function header(active) {
    const h = document.createElement("header");
    h.className = "top " + GB.uid("hd");
    h.style.height = `${headerHeight}px`;
    const brand = document.createElement("a");
    brand.className = "brand";
    brand.href = GB.url("/moving/index.html");
    brand.textContent = "Lumen & Co";
    const nav = document.createElement("nav");
    nav.setAttribute("aria-label", "Main");
    for (const [text, path] of [["All lamps", "/moving/index.html"], ["Buying guide", "/moving/guide.html"]]) {
      const a = document.createElement("a");
      a.href = GB.url(path);
      a.textContent = text;
      if (text === active) a.setAttribute("aria-current", "page");
      nav.append(a);
    }
    const basket = document.createElement("span");
    basket.className = "basket";
    basket.textContent = "Basket";
    h.append(brand, nav, basket);
    document.body.prepend(h);
    return h;
  }

  function banner(slot, html) {
    setTimeout(() => {
      const b = document.createElement("aside");
      b.className = "promo " + GB.uid("pr");
      b.setAttribute("aria-label", "Promotion");
      b.style.height = `${bannerHeight}px`;
      b.innerHTML = html || "<strong>Spring sale</strong><span>Free delivery on everything this week.</span>";
      slot.prepend(b);
    }, bannerDelay);
  }

  window.Moving = { header, banner, headerHeight, bannerDelay, bannerHeight };
})();
