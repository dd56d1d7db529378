/* Helply inbox — conversations list, thread with composer, attributes panel. */
(function () {
  "use strict";

  const COLORS = ["#5b6cff", "#e36b5d", "#2fa37a", "#d49a1c", "#8e5bd6", "#2b8fc9", "#cf5a93", "#5f7a8c", "#3aa3a0", "#b0653a"];
  const AGENT = { name: "Sam Carter", initials: "SC", color: "#f5a623" };
  const orderNo = 40000 + GB.int(9000);
  const wait = 10 + GB.int(8);

  // id -> conversation; ids are stable per customer, the order in the list is seeded.
  const CUSTOMERS = [
    {
      id: "c4821", name: "Maria Lopez", email: "maria.lopez@fastmail.com", plan: "Pro", city: "Austin, TX",
      tags: ["Billing"], priority: GB.pick(["low", "normal"]), channel: "Email",
      thread: [
        ["in", `Hi, I sent back the stand mixer from order #${orderNo} and the return was marked as received, but I still haven't seen my money.`],
        ["out", "Thanks Maria, I'm checking with our billing team now."],
        ["in", `It's been ${wait} days now. Can you tell me when the refund will come through?`],
      ],
    },
    {
      id: "c4190", name: "Mario Lopez", email: "mlopez@lopezdesign.co", plan: "Starter", city: "San Diego, CA",
      tags: ["Account access"], priority: "normal", channel: "Chat",
      thread: [
        ["in", "I keep getting logged out every few minutes on Chrome."],
        ["in", "Is this a known problem? I've cleared cookies already."],
      ],
    },
    {
      id: "c5307", name: "Maria Lopes", email: "maria.lopes@correio.pt", plan: "Pro", city: "Porto, PT",
      tags: ["Shipping"], priority: "normal", channel: "Email",
      thread: [
        ["in", `My package for order #${orderNo + 311} says delivered but nothing arrived.`],
        ["out", "Sorry to hear that! I've opened a claim with the carrier."],
        ["in", "Thank you. Do I need to do anything for the refund?"],
      ],
    },
    {
      id: "c3975", name: "Marisa Lopez", email: "marisa@brightpath.org", plan: "Business", city: "Denver, CO",
      tags: ["Billing", "VIP"], priority: "normal", channel: "Email",
      thread: [
        ["in", "Could you send me last month's invoice as a PDF? Our accountant needs it."],
      ],
    },
    {
      id: "c6612", name: "Daniel Okafor", email: "d.okafor@northwind.io", plan: "Business", city: "Lagos, NG",
      tags: ["Account access"], priority: "normal", channel: "Chat",
      thread: [
        ["in", "One of our users gets a 403 error on the shared workspace since this morning."],
        ["in", "It's Maria Lopez on my team. Can you reset her access please?"],
      ],
    },
    {
      id: "c2088", name: "Priya Raman", email: "priya@raman.dev", plan: "Pro", city: "Bengaluru, IN",
      tags: ["Feature request"], priority: "low", channel: "Chat",
      thread: [
        ["in", "Any plans to support exporting reports to CSV? That would save us hours."],
      ],
    },
    {
      id: "c7734", name: "Tom Becker", email: "tbecker@kaufhaus.de", plan: "Business", city: "Berlin, DE",
      tags: ["Bug"], priority: "urgent", channel: "Email",
      thread: [
        ["in", "Checkout is failing for all of our customers since the last update!"],
        ["out", "We're on it, Tom. Engineering has been paged."],
        ["in", "Please keep me posted, we're losing sales every minute."],
      ],
    },
    {
      id: "c1456", name: "Aiko Tanaka", email: "aiko.t@hoshi.jp", plan: "Starter", city: "Osaka, JP",
      tags: ["Onboarding"], priority: "normal", channel: "Chat",
      thread: [
        ["in", "How do I invite my teammates? I can't find the button."],
      ],
    },
    {
      id: "c9021", name: "Lena Fischer", email: "lena.fischer@web.de", plan: "Pro", city: "Hamburg, DE",
      tags: ["Cancellation"], priority: "urgent", channel: "Email",
      thread: [
        ["in", "I'd like to cancel my subscription before the next renewal, please."],
        ["in", "Also, will I get a refund for the unused months?"],
      ],
    },
    {
      id: "c3310", name: "Marcus Lee", email: "marcus@leeandco.com", plan: "Starter", city: "Toronto, CA",
      tags: [], priority: "normal", channel: "Email",
      thread: [
        ["in", "Thanks for the quick help yesterday, everything works now!"],
      ],
    },
  ];

  const TAGS = [
    ["Account access", "#2b8fc9"], ["Billing", "#2fa37a"], ["Bug", "#e36b5d"], ["Cancellation", "#b0653a"],
    ["Feature request", "#8e5bd6"], ["Onboarding", "#3aa3a0"], ["Partial refund", "#d49a1c"],
    ["Refund", "#cf5a93"], ["Refund denied", "#5f7a8c"], ["Shipping", "#5b6cff"], ["VIP", "#f5a623"],
  ];
  const TAG_COLOR = Object.fromEntries(TAGS);
  const RECENT_TAGS = GB.shuffle(["Refund denied", "Bug", "Shipping", "Partial refund", "VIP"]).slice(0, 2 + GB.int(2)).sort();

  const SAVED_REPLIES = [
    { title: "Refund processed", body: "Hi {first}, good news: your refund has been processed. You'll see it on your statement shortly." },
    { title: "Shipping delay apology", body: "Hi {first}, we're sorry for the delay. Your order is on its way and should arrive soon." },
    { title: "Closing: no response", body: "Hi {first}, we haven't heard back so we're closing this conversation. Just reply to reopen it." },
    { title: "Escalated to billing", body: "Hi {first}, I've passed this on to our billing team and they'll follow up by email." },
  ];

  // Seeded order: the list is "newest first"; keep the target off the first row so it is not open on load.
  let order = GB.shuffle(CUSTOMERS);
  const ti = order.findIndex((c) => c.id === "c4821");
  const [target] = order.splice(ti, 1);
  order.splice(1 + GB.int(5), 0, target);
  const TIMES = ["2m", "11m", "26m", "48m", "1h", "2h", "3h", "5h", "Yesterday", "Mon"];
  const times = TIMES.map((t) => (/m$/.test(t) ? `${parseInt(t, 10) + GB.int(4)}m` : t));

  const convs = order.map((c, i) => ({
    ...c,
    tags: c.tags.slice(),
    time: times[i],
    unread: i === 0 ? false : c.id === "c4821" ? true : GB.rand() < 0.45,
    color: COLORS[(i * 3 + GB.seed) % COLORS.length],
    initials: c.name.split(" ").map((p) => p[0]).join(""),
    messages: c.thread.map(([dir, text]) => ({ dir, text })),
    replies: [], notes: [], draft: "",
  }));
  const byId = Object.fromEntries(convs.map((c) => [c.id, c]));

  let currentId = convs[0].id;
  let filter = "all";
  let mode = "reply";

  const $ = (sel, root = document) => root.querySelector(sel);
  const esc = (s) => String(s).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[ch]));
  const cur = () => byId[currentId];

  function toast(text) {
    const t = $("#toast");
    t.textContent = text;
    t.classList.add("show");
    clearTimeout(toast._t);
    toast._t = setTimeout(() => t.classList.remove("show"), 2200);
  }

  function record(conv, key, value) {
    GB.set({ [`conversations.${conv.id}.${key}`]: value });
  }

  /* ---------- conversation list ---------- */
  function renderFilters() {
    const counts = {
      all: convs.length,
      unread: convs.filter((c) => c.unread).length,
      urgent: convs.filter((c) => c.priority === "urgent").length,
    };
    $("#inbox-count").textContent = `${counts.all} open`;
    $("#filter-chips").innerHTML = [["all", "All"], ["unread", "Unread"], ["urgent", "Urgent"]]
      .map(([k, l]) => `<span class="chip-filter${filter === k ? " on" : ""}" data-filter="${k}">${l} ${counts[k]}</span>`)
      .join("");
  }

  function renderList() {
    renderFilters();
    const shown = convs.filter((c) => filter === "all" || (filter === "unread" ? c.unread : c.priority === "urgent"));
    const list = $("#conv-list");
    if (!shown.length) {
      list.innerHTML = `<div class="conv-empty">No conversations match this view.</div>`;
      return;
    }
    list.innerHTML = shown.map((c) => {
      const last = c.messages[c.messages.length - 1];
      const snippet = (last.dir === "in" ? "" : "You: ") + last.text;
      return `
      <div class="conv-row${c.unread ? " unread" : ""}${c.id === currentId ? " is-selected" : ""}" id="${GB.uid("row")}" data-id="${c.id}">
        <div class="avatar" style="background:${c.color}">${c.initials}</div>
        <div class="conv-main">
          <div class="conv-top">
            <span class="conv-name">${esc(c.name)}</span>
            ${c.priority === "urgent" ? '<span class="badge-urgent">Urgent</span>' : ""}
            <span class="conv-time">${c.time}</span>
          </div>
          <div class="conv-top">
            <div class="conv-snippet">${esc(snippet)}</div>
            ${c.unread ? '<span class="unread-dot"></span>' : ""}
          </div>
        </div>
      </div>`;
    }).join("");
  }

  $("#filter-chips").addEventListener("click", (e) => {
    const chip = e.target.closest("[data-filter]");
    if (!chip) return;
    filter = chip.dataset.filter;
    renderList();
  });

  $("#conv-list").addEventListener("click", (e) => {
    const row = e.target.closest(".conv-row");
    if (!row || row.dataset.id === currentId) return;
    saveDraft();
    currentId = row.dataset.id;
    cur().unread = false;
    mode = "reply";
    closePopovers();
    renderAll();
  });

  /* ---------- thread + composer ---------- */
  function messageHtml(c, m) {
    if (m.dir === "in") {
      return `<div class="msg in"><div class="avatar" style="background:${c.color}">${c.initials}</div>
        <div><div class="msg-bubble">${esc(m.text)}</div><div class="msg-meta">${esc(c.name)} · ${m.when || c.time}</div></div></div>`;
    }
    const cls = m.dir === "note" ? "note" : "out";
    const meta = m.dir === "note" ? "Internal note" : m.when ? "Sent" : "Seen";
    return `<div class="msg ${cls}"><div class="avatar" style="background:${AGENT.color}">${AGENT.initials}</div>
      <div><div class="msg-bubble">${esc(m.text)}</div><div class="msg-meta">${AGENT.name} · ${m.when || "earlier"} · ${meta}</div></div></div>`;
  }

  function renderThread() {
    const c = cur();
    const first = c.name.split(" ")[0];
    $("#thread-pane").innerHTML = `
      <div class="thread-head">
        <div class="avatar" style="background:${c.color}">${c.initials}</div>
        <div>
          <h2>${esc(c.name)}</h2>
          <div class="thread-sub">${esc(c.email)} · via ${c.channel}</div>
        </div>
        <div class="head-actions">
          <button class="btn" type="button" data-act="snooze">Snooze</button>
          <button class="btn btn-dark" type="button" data-act="close">✓ Close</button>
        </div>
      </div>
      <div class="messages">
        <div class="day-sep">Today</div>
        ${c.messages.map((m) => messageHtml(c, m)).join("")}
      </div>
      <div class="composer${mode === "note" ? " is-note" : ""}">
        <div class="composer-tabs">
          <button type="button" class="ctab${mode === "reply" ? " is-active" : ""}" data-mode="reply">Reply</button>
          <button type="button" class="ctab${mode === "note" ? " is-active" : ""}" data-mode="note">Note</button>
        </div>
        <div class="composer-input" contenteditable="true" spellcheck="true"
          data-placeholder="${mode === "note" ? "Add an internal note, only your team sees it…" : `Reply to ${esc(first)}…`}"></div>
        <div class="composer-bar">
          <button type="button" class="icon-btn" title="Emoji"><svg width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" stroke-width="1.4"><circle cx="8" cy="8" r="6.5"/><circle cx="5.8" cy="6.5" r=".6" fill="currentColor"/><circle cx="10.2" cy="6.5" r=".6" fill="currentColor"/><path d="M5.2 9.6c.7 1 1.6 1.5 2.8 1.5s2.1-.5 2.8-1.5"/></svg></button>
          <button type="button" class="icon-btn"><svg width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" stroke-width="1.4"><path d="M10.5 4.5 5.6 9.4a1.3 1.3 0 0 0 1.9 1.9l5-5a2.6 2.6 0 0 0-3.7-3.7l-5 5a3.9 3.9 0 0 0 5.5 5.5l4.2-4.2"/></svg></button>
          <button type="button" class="macro-btn"><svg width="13" height="13" viewBox="0 0 16 16" fill="currentColor"><path d="M9.5 1 3 9h4.5L6.5 15 13 7H8.5z"/></svg>Insert saved reply</button>
          <span class="spacer"></span>
          <span class="send-hint">Ctrl ↵ to send</span>
          <button type="button" class="send-btn" disabled>${mode === "note" ? "Add note" : "Send"}</button>
        </div>
        <div class="macro-menu" hidden>
          <div class="macro-menu-title">Saved replies</div>
          ${SAVED_REPLIES.map((r, i) => `<div class="macro-item" data-i="${i}">${esc(r.title)}<small>${esc(r.body.replace("{first}", first))}</small></div>`).join("")}
        </div>
      </div>`;
    const input = $(".composer-input");
    input.textContent = c.draft;
    syncComposer();
    const msgs = $(".messages");
    msgs.scrollTop = msgs.scrollHeight;
  }

  function composerText() {
    const input = $(".composer-input");
    return input ? input.innerText.replace(/\u00a0/g, " ").replace(/\s+/g, " ").trim() : "";
  }

  function syncComposer() {
    const input = $(".composer-input");
    const has = composerText().length > 0;
    input.classList.toggle("is-empty", !has && !input.querySelector("img"));
    $(".send-btn").disabled = !has;
  }

  function saveDraft() {
    const input = $(".composer-input");
    if (input) cur().draft = input.innerText.replace(/\n$/, "");
  }

  function send() {
    const text = composerText();
    if (!text) return;
    const c = cur();
    if (mode === "note") {
      c.notes.push(text);
      c.messages.push({ dir: "note", text, when: "Just now" });
      record(c, "notes", c.notes.slice());
      toast("Note added");
    } else {
      c.replies.push(text);
      c.messages.push({ dir: "out", text, when: "Just now" });
      record(c, "replies", c.replies.slice());
      toast(`Reply sent to ${c.name}`);
    }
    c.draft = "";
    renderThread();
    renderList();
  }

  const thread = $("#thread-pane");
  thread.addEventListener("input", (e) => {
    if (e.target.classList.contains("composer-input")) syncComposer();
  });
  thread.addEventListener("keydown", (e) => {
    if (e.target.classList.contains("composer-input") && e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      send();
    }
  });
  thread.addEventListener("click", (e) => {
    const t = e.target;
    if (t.closest(".send-btn")) { send(); return; }
    const tab = t.closest(".ctab");
    if (tab) {
      saveDraft();
      mode = tab.dataset.mode;
      renderThread();
      return;
    }
    if (t.closest(".macro-btn")) {
      const menu = $(".macro-menu");
      const open = menu.hidden;
      closePopovers();
      menu.hidden = !open;
      return;
    }
    const item = t.closest(".macro-item");
    if (item) {
      const r = SAVED_REPLIES[+item.dataset.i];
      const input = $(".composer-input");
      const first = cur().name.split(" ")[0];
      const existing = input.innerText.replace(/\n$/, "");
      input.textContent = (existing ? existing + " " : "") + r.body.replace("{first}", first);
      $(".macro-menu").hidden = true;
      syncComposer();
      input.focus();
      return;
    }
    const act = t.closest("[data-act]");
    if (act) {
      const c = cur();
      if (act.dataset.act === "close") {
        record(c, "status", "closed");
        toast(`Conversation with ${c.name} closed`);
      } else {
        record(c, "status", "snoozed");
        toast(`Snoozed until tomorrow 9:00`);
      }
    }
  });

  /* ---------- details panel ---------- */
  function renderDetails() {
    const c = cur();
    const prios = [["low", "Low", "#9aa0b1"], ["normal", "Normal", "#2b8fc9"], ["urgent", "Urgent", "#d64533"]];
    $("#details-pane").innerHTML = `
      <div class="dsec">
        <div class="dsec-title">Assignee</div>
        <div class="kv"><span>Owner</span><span>${AGENT.name} (you)</span></div>
        <div class="kv"><span>Team</span><span>Tier 1 Support</span></div>
      </div>
      <div class="dsec">
        <div class="dsec-title">Priority</div>
        <div class="prio-seg" role="group">
          ${prios.map(([v, l, col]) => `<button type="button" class="seg-btn${c.priority === v ? " is-active" : ""}" data-value="${v}"><span class="pdot" style="background:${col}"></span>${l}</button>`).join("")}
        </div>
      </div>
      <div class="dsec tags-sec">
        <div class="dsec-title">Tags</div>
        <div class="tag-chips">
          ${c.tags.map((t) => `<span class="tag-chip">${esc(t)}<button type="button" class="x" data-tag="${esc(t)}">×</button></span>`).join("")}
          <button type="button" class="tags-add">+ Add tag</button>
        </div>
        <div class="tag-popover" hidden>
          <input type="text" class="tag-search" placeholder="Search tags…" autocomplete="off">
          <div class="tag-list"></div>
        </div>
      </div>
      <div class="dsec">
        <div class="dsec-title">Customer</div>
        <div class="kv"><span>Name</span><span>${esc(c.name)}</span></div>
        <div class="kv"><span>Email</span><span>${esc(c.email)}</span></div>
        <div class="kv"><span>Plan</span><span>${c.plan}</span></div>
        <div class="kv"><span>Location</span><span>${esc(c.city)}</span></div>
      </div>
      <div class="dsec">
        <div class="dsec-title">Conversation</div>
        <div class="kv"><span>ID</span><span>#${c.id.slice(1)}</span></div>
        <div class="kv"><span>Channel</span><span>${c.channel}</span></div>
        <div class="kv"><span>Started</span><span>${c.time} ago</span></div>
      </div>`;
  }

  function tagOptHtml(name, checked) {
    return `<label class="tag-opt"><input type="checkbox" value="${esc(name)}"${checked ? " checked" : ""}><span class="box"></span><span class="tdot" style="background:${TAG_COLOR[name]}"></span><span class="tag-opt-name">${esc(name)}</span></label>`;
  }

  function renderTagList() {
    const c = cur();
    const q = $(".tag-popover .tag-search").value.trim().toLowerCase();
    const list = $(".tag-list");
    if (q) {
      const hits = TAGS.map(([n]) => n).filter((n) => n.toLowerCase().includes(q));
      list.innerHTML = hits.length ? hits.map((n) => tagOptHtml(n, c.tags.includes(n))).join("")
        : `<div class="tag-none">No tags match “${esc(q)}”</div>`;
      return;
    }
    list.innerHTML = `<div class="tag-group">Recently used</div>${RECENT_TAGS.map((n) => tagOptHtml(n, c.tags.includes(n))).join("")}
      <div class="tag-group">All tags</div>${TAGS.map(([n]) => tagOptHtml(n, c.tags.includes(n))).join("")}`;
  }

  function setTags(c, tags) {
    c.tags = tags;
    record(c, "tags", tags.slice().sort());
    const pop = $(".tag-popover");
    const wasOpen = pop && !pop.hidden;
    const q = wasOpen ? $(".tag-popover .tag-search").value : "";
    const scroll = wasOpen ? $(".tag-list").scrollTop : 0;
    renderDetails();
    if (wasOpen) {
      $(".tag-popover").hidden = false;
      $(".tag-popover .tag-search").value = q;
      renderTagList();
      $(".tag-list").scrollTop = scroll;
    }
  }

  const details = $("#details-pane");
  details.addEventListener("click", (e) => {
    const t = e.target;
    const c = cur();
    const seg = t.closest(".seg-btn");
    if (seg) {
      closePopovers();
      if (seg.dataset.value !== c.priority) {
        c.priority = seg.dataset.value;
        record(c, "priority", c.priority);
        renderDetails();
        renderList();
      }
      return;
    }
    if (t.closest(".tags-add")) {
      const pop = $(".tag-popover");
      const open = pop.hidden;
      closePopovers();
      if (open) {
        pop.hidden = false;
        pop.querySelector(".tag-search").value = "";
        renderTagList();
        pop.querySelector(".tag-search").focus();
      }
      return;
    }
    const x = t.closest(".tag-chip .x");
    if (x) {
      setTags(c, c.tags.filter((n) => n !== x.dataset.tag));
    }
  });
  details.addEventListener("change", (e) => {
    const box = e.target;
    if (!box.matches(".tag-opt input")) return;
    const c = cur();
    const name = box.value;
    if (box.checked && !c.tags.includes(name)) setTags(c, [...c.tags, name]);
    else if (!box.checked && c.tags.includes(name)) setTags(c, c.tags.filter((n) => n !== name));
  });
  details.addEventListener("input", (e) => {
    if (e.target.matches(".tag-popover .tag-search")) renderTagList();
  });

  function closePopovers() {
    const pop = $(".tag-popover");
    if (pop) pop.hidden = true;
    const menu = $(".macro-menu");
    if (menu) menu.hidden = true;
  }

  document.addEventListener("mousedown", (e) => {
    if (e.target.closest(".tag-popover, .tags-add, .macro-menu, .macro-btn")) return;
    closePopovers();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closePopovers();
  });

  function renderAll() {
    renderList();
    renderThread();
    renderDetails();
  }
  renderAll();
})();
