(function () {
  "use strict";
  GB.rand(); // the first draw of a seeded stream follows the seed closely; skip it
  const CATALOG = [
    { name: "Merino Base Layer Crew", variant: "Slate · M", price: 64 },
    { name: "Trail Running Socks, 2 pack", variant: "Charcoal · 39–42", price: 18 },
    { name: "Packable Rain Shell", variant: "Moss · M", price: 119 },
    { name: "Insulated Bottle 750 ml", variant: "Sand", price: 29 },
    { name: "Ridge 28L Daypack", variant: "Black", price: 85 },
    { name: "Fleece Beanie", variant: "Rust · One size", price: 22 },
  ];
  const items = GB.shuffle(CATALOG).slice(0, 3).map((p) => ({ ...p, qty: GB.rand() < 0.3 ? 2 : 1 }));
  const subtotal = items.reduce((s, i) => s + i.price * i.qty, 0);
  const delivery = subtotal >= 150 ? 0 : 6.95;
  const total = subtotal + delivery;
  const money = (n) => "£" + n.toFixed(2);

  const ul = document.getElementById("items");
  for (const it of items) {
    const li = document.createElement("li");
    li.innerHTML = '<span class="thumb"><span class="qty"></span></span><span class="it"><strong></strong><small></small></span><span class="pr"></span>';
    li.querySelector(".qty").textContent = it.qty;
    li.querySelector("strong").textContent = it.name;
    li.querySelector("small").textContent = it.variant;
    li.querySelector(".pr").textContent = money(it.price * it.qty);
    ul.appendChild(li);
  }
  document.getElementById("subtotal").textContent = money(subtotal);
  document.getElementById("delivery").textContent = delivery ? money(delivery) : "Free";
  document.getElementById("total").textContent = money(total);

  // The provider's widget gets the amount in its URL, as hosted fields do.
  const frame = document.getElementById("pay-frame");
  frame.src = GB.url("pay-frame.html", { amount: Math.round(total * 100), currency: "GBP", merchant: "Fernhill Outdoor" });

  window.addEventListener("message", (e) => {
    if (e.origin !== location.origin || !e.data || typeof e.data !== "object") return;
    if (e.data.type === "pw:resize") frame.style.height = `${Math.ceil(e.data.height)}px`;
    if (e.data.type === "pw:paid") {
      document.getElementById("pay-section").hidden = true;
      const c = document.getElementById("confirmed");
      c.hidden = false;
      document.getElementById("confirmed-text").textContent =
        `Your payment of ${money(total)} went through and order FH-${e.data.ref} is confirmed.`;
      for (const s of document.querySelectorAll(".steps li")) s.removeAttribute("aria-current");
      document.querySelector(".steps li:last-child").setAttribute("aria-current", "step");
      document.getElementById("back-to-cart").hidden = true;
    }
  });

  document.getElementById("back-to-cart").addEventListener("click", () => {
    GB.set({ left_checkout: "cart" });
  });
  document.getElementById("discount").addEventListener("submit", (e) => {
    e.preventDefault();
    const code = document.getElementById("code").value.trim();
    document.getElementById("discount-msg").textContent = code ? "Enter a valid discount code or gift card." : "";
  });
})();
