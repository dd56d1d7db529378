(function () {
  "use strict";

  const $ = (sel) => document.querySelector(sel);
  const MAX_TAGS = 5, MIN_QTY = 1, MAX_QTY = 12, PRICE = 23.4;

  // Seeded: SKU, stock level, the order of the tag suggestions and the recent-requests list.
  $("#sku").textContent = "PPR-A4-" + String(GB.range(1000, 9999));
  $("#stock").textContent = `${GB.range(1, 4)} boxes left`;
  const KNOWN = GB.shuffle([
    ["urgent", 41], ["urgent-review", 6], ["finance", 18], ["finance-q3", 4], ["facilities", 22],
    ["print-room", 13], ["reception", 9], ["supplies", 57], ["events", 7], ["furniture", 3],
  ]);
  const RECENT = GB.shuffle([
    ["Toner cartridges, black (x4)", "Approved", "ok"],
    ["Whiteboard markers (x12)", "Waiting for approval", "wait"],
    ["Padded envelopes C4 (x2)", "Delivered", "ok"],
    ["Desk lamp, LED (x1)", "Delivered", "ok"],
  ]);
  for (const [title, status, kind] of RECENT) {
    const li = document.createElement("li");
    li.innerHTML = `<div class="recent__title"></div><div class="recent__meta"><span class="status status--${kind}"></span> · ${GB.range(2, 28)} days ago</div>`;
    li.querySelector(".recent__title").textContent = title;
    li.querySelector(".status").textContent = status;
    $("#recent").appendChild(li);
  }

  // ---- tag input ----
  const box = $("#tag-box"), entry = $("#tag-entry"), chipsEl = $("#chips"), list = $("#tag-suggestions"), err = $("#tags-error");
  const tags = ["supplies"];
  let active = -1;        // index of the suggestion chosen with the arrow keys (-1: none)
  let shown = [];

  const normalise = (text) => text.trim().toLowerCase().replace(/\s+/g, "-").replace(/[^a-z0-9-]/g, "");

  function renderChips() {
    chipsEl.textContent = "";
    for (const t of tags) {
      const li = document.createElement("li");
      li.className = "chip";
      li.appendChild(document.createTextNode(t));
      const x = document.createElement("button");
      x.type = "button";
      x.className = "chip__remove";
      x.setAttribute("aria-label", `Remove ${t}`);
      x.textContent = "×";
      x.addEventListener("click", (ev) => {
        ev.stopPropagation();
        removeTag(t);
        entry.focus();
      });
      li.appendChild(x);
      chipsEl.appendChild(li);
    }
    entry.placeholder = tags.length >= MAX_TAGS ? "" : (tags.length ? "Add another tag…" : "Add a tag…");
  }

  function addTag(raw) {
    const t = normalise(raw);
    if (!t) return false;
    if (tags.includes(t)) { err.textContent = `"${t}" is already added`; return false; }
    if (tags.length >= MAX_TAGS) { err.textContent = `You can add up to ${MAX_TAGS} tags`; return false; }
    if (t.length > 24) { err.textContent = "Tags can be at most 24 characters"; return false; }
    tags.push(t);
    err.textContent = "";
    renderChips();
    return true;
  }

  function removeTag(t) {
    const i = tags.indexOf(t);
    if (i >= 0) tags.splice(i, 1);
    err.textContent = "";
    renderChips();
    renderSuggestions();
  }

  function renderSuggestions() {
    const q = normalise(entry.value);
    shown = q ? KNOWN.filter(([t]) => t.includes(q) && !tags.includes(t)).slice(0, 6) : [];
    list.textContent = "";
    shown.forEach(([t, uses], i) => {
      const li = document.createElement("li");
      li.className = "suggest__option";
      li.id = GB.uid("opt");
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", String(i === active));
      li.innerHTML = `<span></span><small>${uses} requests</small>`;
      li.firstChild.textContent = t;
      li.addEventListener("mousedown", (ev) => ev.preventDefault());  // keep focus in the field
      li.addEventListener("click", () => { addTag(t); entry.value = ""; closeSuggestions(); entry.focus(); });
      list.appendChild(li);
    });
    const open = shown.length > 0;
    list.hidden = !open;
    entry.setAttribute("aria-expanded", String(open));
    if (open && active >= 0) entry.setAttribute("aria-activedescendant", list.children[active].id);
    else entry.removeAttribute("aria-activedescendant");
  }

  function closeSuggestions() {
    active = -1; shown = [];
    list.hidden = true; list.textContent = "";
    entry.setAttribute("aria-expanded", "false");
    entry.removeAttribute("aria-activedescendant");
  }

  entry.addEventListener("input", () => {
    active = -1;
    if (entry.value.includes(",")) {  // a comma ends a tag, as Enter does
      const parts = entry.value.split(",");
      const rest = parts.pop();
      for (const p of parts) addTag(p);
      entry.value = rest;
    }
    renderSuggestions();
  });

  entry.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      ev.preventDefault();  // never submit the form from this field
      const chosen = active >= 0 && shown[active] ? shown[active][0] : entry.value;
      if (addTag(chosen)) entry.value = "";
      closeSuggestions();
    } else if (ev.key === "ArrowDown" && shown.length) {
      ev.preventDefault();
      active = (active + 1) % shown.length;
      renderSuggestions();
    } else if (ev.key === "ArrowUp" && shown.length) {
      ev.preventDefault();
      active = active <= 0 ? shown.length - 1 : active - 1;
      renderSuggestions();
    } else if (ev.key === "Escape") {
      closeSuggestions();
    } else if (ev.key === "Backspace" && entry.value === "" && entry.selectionStart === 0 && tags.length) {
      removeTag(tags[tags.length - 1]);
    }
  });

  entry.addEventListener("blur", () => setTimeout(closeSuggestions, 120));
  box.addEventListener("click", (ev) => { if (ev.target === box || ev.target === chipsEl) entry.focus(); });

  // ---- quantity stepper ----
  const qty = $("#qty"), down = $("#qty-down"), up = $("#qty-up"), total = $("#qty-total");
  let quantity = 2;

  function setQuantity(n) {
    quantity = Math.min(MAX_QTY, Math.max(MIN_QTY, n));
    qty.value = String(quantity);
    down.disabled = quantity <= MIN_QTY;
    up.disabled = quantity >= MAX_QTY;
    total.textContent = `${quantity} × £${PRICE.toFixed(2)} = £${(quantity * PRICE).toFixed(2)}`;
  }
  down.addEventListener("click", () => setQuantity(quantity - 1));
  up.addEventListener("click", () => setQuantity(quantity + 1));
  qty.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowUp") { ev.preventDefault(); setQuantity(quantity + 1); }
    if (ev.key === "ArrowDown") { ev.preventDefault(); setQuantity(quantity - 1); }
  });
  qty.addEventListener("change", () => {
    const n = parseInt(qty.value.replace(/\D/g, ""), 10);
    setQuantity(Number.isNaN(n) ? quantity : n);
  });
  setQuantity(quantity);

  // ---- submit ----
  $("#request-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const pending = normalise(entry.value);
    if (pending) {  // a typed word not yet turned into a chip is not silently dropped
      err.textContent = `Press Enter to add "${pending}" as a tag, or clear the field`;
      entry.focus();
      return;
    }
    if (!tags.length) { err.textContent = "Add at least one tag"; entry.focus(); return; }
    qty.dispatchEvent(new Event("change"));
    GB.set({
      request: {
        item: "Recycled copier paper A4, 80 gsm",
        tags: tags.slice().sort(),
        quantity,
        deliver_to: $("#deliver-to").value,
        notes: $("#notes").value.trim(),
      },
    });
    const banner = $("#banner");
    banner.textContent = `Request submitted: ${quantity} boxes, tagged ${tags.join(", ")}. We'll let you know when it's approved.`;
    banner.hidden = false;
    window.scrollTo({ top: 0 });
  });
  $("#cancel").addEventListener("click", () => {
    $("#banner").textContent = "Request discarded.";
    $("#banner").hidden = false;
  });

  renderChips();
})();
