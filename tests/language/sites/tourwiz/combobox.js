// Tiny autocomplete ("select-ish") used on the checkout forms. The list is portalled to <body>
// so it is not clipped by the card's overflow. Value is only committed from the list.
(function () {
  "use strict";

  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  }

  function createCombobox(input, opts) {
    const options = opts.options.slice();
    const onChange = opts.onChange || function () {};
    const listId = GB.uid("cbx-list");
    let popup = null;
    let items = [];
    let active = -1;
    let committed = null;
    let dirty = false;

    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("autocomplete", "off");

    function position() {
      if (!popup) return;
      const r = input.getBoundingClientRect();
      popup.style.top = (r.bottom + window.scrollY + 4) + "px";
      popup.style.left = (r.left + window.scrollX) + "px";
      popup.style.width = r.width + "px";
    }

    function render() {
      const q = dirty ? input.value.trim().toLowerCase() : "";
      items = q ? options.filter((o) => o.toLowerCase().includes(q)) : options.slice();
      active = items.length ? Math.max(0, committed && !q ? items.indexOf(committed) : 0) : -1;
      if (!items.length) {
        popup.innerHTML = '<li class="cbx-empty">No matches</li>';
        return;
      }
      popup.innerHTML = items.map((o, i) =>
        `<li class="cbx-option${i === active ? " is-active" : ""}${o === committed ? " is-chosen" : ""}"` +
        ` role="option" aria-selected="${i === active}" data-i="${i}">${esc(o)}</li>`).join("");
    }

    function paintActive(scroll) {
      if (!popup) return;
      popup.querySelectorAll("li.cbx-option").forEach((li) => {
        const on = Number(li.dataset.i) === active;
        li.classList.toggle("is-active", on);
        li.setAttribute("aria-selected", String(on));
        if (on && scroll) li.scrollIntoView({ block: "nearest" });
      });
    }

    function open() {
      if (!popup) {
        popup = document.createElement("ul");
        popup.className = "cbx-popup";
        popup.id = listId;
        popup.setAttribute("role", "listbox");
        // keep focus in the input while picking with the mouse
        popup.addEventListener("mousedown", (e) => e.preventDefault());
        popup.addEventListener("click", (e) => {
          const li = e.target.closest("li.cbx-option");
          if (li) commit(items[Number(li.dataset.i)]);
        });
        popup.addEventListener("mousemove", (e) => {
          const li = e.target.closest("li.cbx-option");
          if (li && Number(li.dataset.i) !== active) { active = Number(li.dataset.i); paintActive(false); }
        });
        document.body.appendChild(popup);
        input.setAttribute("aria-controls", listId);
      }
      render();
      position();
      input.setAttribute("aria-expanded", "true");
    }

    function close() {
      if (popup) { popup.remove(); popup = null; }
      input.setAttribute("aria-expanded", "false");
    }

    function commit(value) {
      committed = value;
      dirty = false;
      input.value = value;
      close();
      onChange(value);
    }

    input.addEventListener("focus", open);
    input.addEventListener("click", () => { if (!popup) open(); });
    input.addEventListener("input", () => {
      dirty = true;
      if (!popup) open(); else { render(); position(); }
    });
    input.addEventListener("keydown", (e) => {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        if (!popup) { open(); return; }
        if (!items.length) return;
        active = (active + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
        paintActive(true);
      } else if (e.key === "Enter") {
        e.preventDefault();
        if (popup && active >= 0) commit(items[active]);
      } else if (e.key === "Escape") {
        input.value = committed || "";
        dirty = false;
        close();
      } else if (e.key === "Tab") {
        close();
      }
    });
    input.addEventListener("blur", () => {
      // text that was typed but never picked from the list is thrown away
      setTimeout(() => {
        if (document.activeElement === input) return;
        input.value = committed || "";
        dirty = false;
        close();
      }, 0);
    });
    window.addEventListener("scroll", position, true);
    window.addEventListener("resize", position);

    return {
      get value() { return committed; },
      set(v) { committed = v; input.value = v || ""; },
      destroy() {
        close();
        window.removeEventListener("scroll", position, true);
        window.removeEventListener("resize", position);
      },
    };
  }

  window.createCombobox = createCombobox;
})();
