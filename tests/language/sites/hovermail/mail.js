(function () {
  "use strict";
  GB.rand(); // the first draw of a seeded stream follows the seed closely; skip it

  const ME = "jordan.lee@fernhollow.co";
  // box: where the conversation lives. label: the coloured label it carries (if any).
  const MESSAGES = [
    { id: "m-varga-invoice", from: "Elena Varga", addr: "elena@brightline.studio", box: "inbox", label: "Work", unread: true,
      subject: "Invoice #4471 — September design retainer",
      snippet: "Hi Jordan, attached is the invoice for the September retainer (42 hours). Payment terms are net 30 as usual, bank details are on page 2.",
      body: ["Hi Jordan,", "Attached is the invoice for the September retainer — 42 hours in total, broken down by project on the first page.", "Payment terms are net 30 as usual; bank details are on page 2. Let me know if finance needs a PO number on it.", "Thanks!<br>Elena"],
      attach: { name: "INV-4471.pdf", size: "84 KB" } },
    { id: "m-varga-mockups", from: "Elena Varga", addr: "elena@brightline.studio", box: "inbox", label: "Work", unread: false,
      subject: "Homepage mockups v3",
      snippet: "Here's round three. I moved the pricing block above the fold and tightened the hero copy; this round goes on next month's invoice, no rush.",
      body: ["Hey,", "Here's round three of the homepage. I moved the pricing block above the fold and tightened the hero copy — the old version felt crowded on laptops.", "This round goes on next month's invoice, so no rush on feedback. Comments directly in Pixelboard are easiest for me.", "Elena"],
      attach: { name: "homepage-v3.png", size: "2.1 MB" } },
    { id: "m-northwind", from: "Northwind Cloud Billing", addr: "billing@northwindcloud.com", box: "inbox", label: "Receipts", unread: true,
      subject: "Your invoice for September is ready",
      snippet: "Invoice NW-209118 · Amount due $412.60 · Due Oct 30. Your card ending 4242 will be charged automatically.",
      body: ["Hello Fernhollow,", "Your invoice NW-209118 for September is ready. Amount due: <b>$412.60</b>, due October 30.", "Your card ending in 4242 will be charged automatically. You can download past invoices from the Billing page of your console.", "— Northwind Cloud"] },
    { id: "m-ruiz-offsite", from: "Elena Ruiz", addr: "elena.ruiz@fernhollow.co", box: "inbox", label: "Work", unread: true,
      subject: "Team offsite — dates poll",
      snippet: "Please vote for the dates that work for you before Friday. We're looking at two options in early November, both near the lake.",
      body: ["Hi all,", "Please vote for the dates that work for you before Friday. We're looking at Nov 6–7 or Nov 13–14, both at the lodge near the lake.", "Elena"] },
    { id: "m-brandt-roadmap", from: "Tomás Brandt", addr: "tomas.brandt@fernhollow.co", box: "inbox", label: "Work", unread: false,
      subject: "Re: Q4 roadmap review",
      snippet: "Thanks for the notes. I agree we should push the billing migration to January and keep the team on onboarding until then.",
      body: ["Thanks for the notes.", "I agree we should push the billing migration to January and keep the team on onboarding until the holidays. I'll update the deck before Thursday.", "T."] },
    { id: "m-calendar-sync", from: "Calendar", addr: "calendar-noreply@mailroom.app", box: "inbox", label: "", unread: true,
      subject: "Invitation: Design sync @ Thu Oct 19, 2pm – 2:45pm",
      snippet: "Organizer: Elena Varga. Join by video link or dial in. Going? Yes · Maybe · No",
      body: ["<b>Design sync</b><br>Thursday Oct 19, 2pm – 2:45pm (Pacific Time)", "Organizer: Elena Varga<br>Guests: Jordan Lee, Tomás Brandt", "Going? Yes · Maybe · No"] },
    { id: "m-chen-lunch", from: "Ava Chen", addr: "ava.chen@gmail.com", box: "inbox", label: "Personal", unread: false,
      subject: "Lunch Thursday?",
      snippet: "There's a new ramen place on 5th that just opened. 12:30 work for you? I can book a table for three if Sam wants to come.",
      body: ["There's a new ramen place on 5th that just opened. 12:30 work for you?", "I can book a table for three if Sam wants to come.", "Ava"] },
    { id: "m-payroll", from: "Fernhollow People Team", addr: "people@fernhollow.co", box: "inbox", label: "", unread: false,
      subject: "Your payslip for September",
      snippet: "Your payslip for the period Sep 1 – Sep 30 is now available in the employee portal. This message was sent automatically.",
      body: ["Hi Jordan,", "Your payslip for the period Sep 1 – Sep 30 is now available in the employee portal.", "This message was sent automatically; please do not reply."] },
    { id: "m-okafor-renewal", from: "Sam Okafor", addr: "sam.okafor@fernhollow.co", box: "inbox", label: "Work", unread: true,
      subject: "Contract renewal — Harbor Logistics",
      snippet: "Harbor wants to renew for another 12 months but is asking for a 5% discount. Can we talk before I reply to them tomorrow?",
      body: ["Jordan,", "Harbor wants to renew for another 12 months but is asking for a 5% discount. Can we talk before I reply to them tomorrow?", "Sam"] },
    { id: "m-skyway", from: "Skyway Airlines", addr: "no-reply@skyway.com", box: "inbox", label: "Personal", unread: false,
      subject: "Your trip confirmation: SFO → SEA",
      snippet: "Confirmation code K7P2QX. Departs Fri Oct 27 at 7:05 AM from SFO Terminal 2. Check in opens 24 hours before departure.",
      body: ["Thanks for flying with Skyway.", "Confirmation code <b>K7P2QX</b><br>Departs Fri Oct 27 at 7:05 AM, SFO Terminal 2 → SEA", "Check in opens 24 hours before departure."] },
    { id: "m-pixelboard", from: "Pixelboard", addr: "notifications@pixelboard.io", box: "inbox", label: "", unread: false,
      subject: "3 new comments on Onboarding flow",
      snippet: "Tomás Brandt and 1 other commented on Onboarding flow: “Can the progress bar start at step 2?”",
      body: ["Tomás Brandt and 1 other commented on <b>Onboarding flow</b>:", "“Can the progress bar start at step 2?”<br>“Agree — and drop the skip link on the last screen.”"] },
    { id: "m-brief", from: "The Product Brief", addr: "hello@productbrief.news", box: "inbox", label: "", unread: false,
      subject: "This week: pricing pages that convert",
      snippet: "Why three plans beat four, the annual toggle debate, and a teardown of five onboarding emails. 7 min read.",
      body: ["Why three plans beat four, the annual toggle debate, and a teardown of five onboarding emails.", "Read time: 7 minutes. Unsubscribe any time."] },
    // Already archived before today.
    { id: "m-varga-aug", from: "Elena Varga", addr: "elena@brightline.studio", box: "archive", label: "Work", unread: false, date: "Sep 4",
      subject: "Invoice #4398 — August design retainer",
      snippet: "Hi Jordan, here's the August invoice (36 hours). Same terms as before, net 30.",
      body: ["Hi Jordan,", "Here's the August invoice — 36 hours. Same terms as before, net 30.", "Elena"], attach: { name: "INV-4398.pdf", size: "81 KB" } },
    { id: "m-bank-aug", from: "Harborview Bank", addr: "statements@harborview.bank", box: "archive", label: "Receipts", unread: false, date: "Sep 2",
      subject: "Your August statement is available",
      snippet: "Your business checking statement for August is ready to view online.",
      body: ["Your business checking statement for August is ready to view online."] },
    { id: "m-welcome", from: "Mailroom Team", addr: "team@mailroom.app", box: "archive", label: "", unread: false, date: "Aug 21",
      subject: "Welcome to Mailroom",
      snippet: "Tips to get started: hover over a conversation to archive, delete or snooze it in one click.",
      body: ["Tips to get started: hover over a conversation to archive, delete or snooze it in one click.", "Press the Archive folder to find anything you've archived."] },
    // Sent.
    { id: "m-sent-1", from: "Jordan Lee", to: "Elena Varga", addr: ME, box: "sent", label: "", unread: false, date: "Oct 13",
      subject: "Re: Homepage mockups v2", snippet: "To: Elena Varga — Looks great overall. Could the pricing block move up?",
      body: ["Looks great overall. Could the pricing block move up? It's the first thing sales asks about."] },
    { id: "m-sent-2", from: "Jordan Lee", to: "Tomás Brandt", addr: ME, box: "sent", label: "", unread: false, date: "Oct 11",
      subject: "Q4 roadmap draft", snippet: "To: Tomás Brandt — First draft attached, comments welcome before the review.",
      body: ["First draft attached, comments welcome before the review."] },
  ];

  // Seeded: inbox order, and today's times (newest first).
  const inbox = GB.shuffle(MESSAGES.filter((m) => m.box === "inbox"));
  const times = [];
  let minutes = GB.range(10 * 60 + 5, 11 * 60 + 40);
  for (let i = 0; i < 3; i++) { times.push(minutes); minutes -= GB.range(25, 95); }
  const fmt = (t) => { const h = Math.floor(t / 60), m = t % 60; return `${h > 12 ? h - 12 : h}:${String(m).padStart(2, "0")} ${h >= 12 ? "PM" : "AM"}`; };
  const OLDER = ["Oct 17", "Oct 17", "Oct 16", "Oct 16", "Oct 15", "Oct 14", "Oct 13", "Oct 12", "Oct 10"];
  inbox.forEach((m, i) => { m.date = i < 3 ? fmt(times[i]) : OLDER[i - 3]; m.order = i; });
  const archivedOrder = MESSAGES.filter((m) => m.box === "archive").map((m) => m.id);
  const byId = Object.fromEntries(MESSAGES.map((m) => [m.id, m]));
  let seq = 0; // newest action first in Archive/Trash/Snoozed
  MESSAGES.forEach((m) => { m.moved = 0; });

  const FOLDERS = [
    { key: "inbox", name: "Inbox", icon: '<path d="M3 13h5l2 3h4l2-3h5"/><path d="M5 5h14l2 8v6H3v-6z"/>' },
    { key: "starred", name: "Starred", icon: '<path d="m12 3 2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1-4.4-4.3 6.1-.9z"/>' },
    { key: "snoozed", name: "Snoozed", icon: '<circle cx="12" cy="13" r="8"/><path d="M12 9v4l3 2M5 3 2 6M19 3l3 3"/>' },
    { key: "sent", name: "Sent", icon: '<path d="m3 11 18-8-8 18-2-8z"/>' },
    { key: "drafts", name: "Drafts", icon: '<path d="M6 3h9l4 4v14H6z"/><path d="M14 3v5h5"/>' },
    { key: "archive", name: "Archive", icon: '<rect x="3" y="4" width="18" height="5" rx="1"/><path d="M5 9v10h14V9M10 13h4"/>' },
    { key: "spam", name: "Spam", icon: '<circle cx="12" cy="12" r="9"/><path d="M12 7v6"/><circle cx="12" cy="16.5" r=".6" fill="currentColor"/>' },
    { key: "trash", name: "Trash", icon: '<path d="M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13"/>' },
  ];
  const LABELS = [
    { key: "label:Work", name: "Work", color: "#2f9e6f" },
    { key: "label:Personal", name: "Personal", color: "#e0873a" },
    { key: "label:Receipts", name: "Receipts", color: "#8a63d2" },
  ];
  const ICON = {
    archive: '<rect x="3" y="4" width="18" height="5" rx="1"/><path d="M5 9v10h14V9M10 13h4"/>',
    delete: '<path d="M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13M10 11v6M14 11v6"/>',
    read: '<path d="M3 10 12 4l9 6v10H3z"/><path d="m3 10 9 6 9-6"/>',
    unread: '<rect x="3" y="5" width="18" height="14" rx="2"/><path d="m3 7 9 6 9-6"/>',
    snooze: '<circle cx="12" cy="13" r="8"/><path d="M12 9v4l3 2M5 3 2 6M19 3l3 3"/>',
    inbox: '<path d="M3 13h5l2 3h4l2-3h5"/><path d="M5 5h14l2 8v6H3v-6z"/>',
    clip: '<path d="m21 11-8.5 8.5a5 5 0 0 1-7-7L14 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L15 7"/>',
  };
  const svg = (d, size = 18) => `<svg width="${size}" height="${size}" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">${d}</svg>`;

  let view = "inbox";
  let query = "";
  let openId = null;
  const userArchived = []; // what the user archived in this session, oldest first
  const brief = (m) => ({ from: m.from, subject: m.subject });

  const $ = (id) => document.getElementById(id);
  const list = $("msglist");

  function inView(m) {
    if (query) {
      const q = query.toLowerCase();
      return m.box !== "trash" && m.box !== "sent" &&
        [m.from, m.addr, m.subject, m.snippet].some((s) => s.toLowerCase().includes(q));
    }
    if (view.startsWith("label:")) return m.label === view.slice(6) && (m.box === "inbox" || m.box === "archive");
    return m.box === view;
  }

  function messagesInView() {
    const rows = MESSAGES.filter(inView);
    const key = (m) => m.box === "inbox" ? [0, m.order ?? -m.moved, 0] : [1, -m.moved, archivedOrder.indexOf(m.id)];
    rows.sort((a, b) => {
      const ka = key(a), kb = key(b);
      return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2];
    });
    return rows;
  }

  function actionsFor(m) {
    const read = m.unread ? ["read", "Mark as read"] : ["unread", "Mark as unread"];
    switch (m.box) {
      case "inbox": return [["archive", "Archive"], ["delete", "Delete"], read, ["snooze", "Snooze"]];
      case "archive": return [["inbox", "Move to Inbox"], ["delete", "Delete"], read];
      case "snoozed": return [["inbox", "Unsnooze"], ["delete", "Delete"]];
      case "trash": return [["inbox", "Move to Inbox"]];
      case "sent": return [["delete", "Delete"]];
      default: return [];
    }
  }

  function renderFolders() {
    const unread = MESSAGES.filter((m) => m.box === "inbox" && m.unread).length;
    document.title = unread ? `Inbox (${unread}) · Mailroom` : "Inbox · Mailroom";
    const ul = $("folders");
    ul.textContent = "";
    for (const f of FOLDERS) {
      const li = document.createElement("li");
      const n = f.key === "inbox" ? unread : f.key === "snoozed" ? MESSAGES.filter((m) => m.box === "snoozed").length : 0;
      li.innerHTML = `<a href="#${f.key}">${svg(f.icon)}<span></span>${n ? `<span class="count">${n}</span>` : ""}</a>`;
      li.querySelector("span").textContent = f.name;
      const a = li.querySelector("a");
      if (!query && view === f.key) a.setAttribute("aria-current", "page");
      a.addEventListener("click", (e) => { e.preventDefault(); openFolder(f.key, f.name); });
      ul.appendChild(li);
    }
    const lab = $("labels");
    lab.textContent = "";
    for (const l of LABELS) {
      const li = document.createElement("li");
      li.innerHTML = `<a href="#"><span class="dot" style="background:${l.color}" aria-hidden="true"></span><span></span></a>`;
      li.querySelector("span:last-child").textContent = l.name;
      const a = li.querySelector("a");
      if (!query && view === l.key) a.setAttribute("aria-current", "page");
      a.addEventListener("click", (e) => { e.preventDefault(); openFolder(l.key, l.name); });
      lab.appendChild(li);
    }
  }

  function openFolder(key, name) {
    view = key;
    query = "";
    $("search").value = "";
    GB.set({ folder: name });
    closeReader();
    render();
  }

  const EMPTY = {
    starred: "No starred messages. Stars let you give messages a special status to make them easier to find.",
    snoozed: "Nothing is snoozed. Snooze a conversation to have it come back to your inbox later.",
    drafts: "You don't have any saved drafts.",
    spam: "Hooray, no spam here!",
    trash: "No conversations in Trash.",
    archive: "Nothing archived yet.",
    inbox: "You're all done! Nothing in Inbox.",
    sent: "No sent messages.",
  };

  function render() {
    renderFolders();
    const folder = FOLDERS.find((f) => f.key === view) || LABELS.find((l) => l.key === view);
    $("folder-title").textContent = query ? `Search results for “${query}”` : folder.name;
    $("tabs").hidden = !!query || view !== "inbox";
    const rows = messagesInView();
    $("range").textContent = rows.length ? `1–${rows.length} of ${rows.length}` : "";
    list.textContent = "";
    $("empty").hidden = rows.length > 0;
    $("empty").textContent = query ? "No messages matched your search." : (EMPTY[view] || "There are no conversations with this label.");
    for (const m of rows) list.appendChild(row(m));
  }

  function row(m) {
    const li = document.createElement("li");
    li.className = "msg" + (m.unread ? " unread" : "") + (m.id === openId ? " selected" : "");
    li.tabIndex = 0;
    li.dataset.id = m.id;
    const chip = (view.startsWith("label:") || !m.label || m.box === "inbox") ? "" : `<span class="chip">${m.box === "archive" && query ? "Archive" : m.label}</span>`;
    li.innerHTML =
      '<span class="udot" aria-hidden="true"></span>' +
      '<span class="from"></span>' +
      `<span class="line">${chip}<span class="subject"></span><span class="snip"></span>${m.attach ? `<span class="clip" title="Has attachment">${svg(ICON.clip, 14)}</span>` : ""}</span>` +
      '<span class="meta"><span class="date"></span><span class="actions"></span></span>';
    li.querySelector(".from").textContent = m.box === "sent" ? `To: ${m.to}` : m.from;
    li.querySelector(".subject").textContent = m.subject;
    li.querySelector(".snip").textContent = " — " + m.snippet;
    li.querySelector(".date").textContent = m.date;
    const actions = li.querySelector(".actions");
    for (const [act, name] of actionsFor(m)) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "icon-btn";
      b.setAttribute("aria-label", name);
      b.title = name;
      b.innerHTML = svg(ICON[act]);
      b.addEventListener("click", (e) => { e.stopPropagation(); act === "snooze" ? openSnooze(m, b) : doAction(act, m); });
      actions.appendChild(b);
    }
    li.addEventListener("click", (e) => { if (!e.target.closest(".actions")) openMessage(m); });
    li.addEventListener("keydown", (e) => { if (e.key === "Enter" && e.target === li) openMessage(m); });
    return li;
  }

  // ---- actions -------------------------------------------------------------------------------
  let undoFn = null;
  let toastTimer = 0;
  function toast(text, undo) {
    $("toast-text").textContent = text;
    $("toast-undo").hidden = !undo;
    undoFn = undo || null;
    $("toast").hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { $("toast").hidden = true; undoFn = null; }, 7000);
  }
  $("toast-undo").addEventListener("click", () => { const f = undoFn; undoFn = null; $("toast").hidden = true; if (f) f(); });
  $("toast-close").addEventListener("click", () => { $("toast").hidden = true; undoFn = null; });

  function syncArchived() { GB.set({ archived: userArchived.map((m) => ({ id: m.id, ...brief(m) })) }); }

  function move(m, box) {
    const from = m.box;
    if (from === "archive") {
      const i = userArchived.indexOf(m);
      if (i >= 0) { userArchived.splice(i, 1); syncArchived(); }
    }
    m.box = box;
    m.moved = ++seq;
    if (box === "archive") { userArchived.push(m); syncArchived(); }
    if (openId === m.id && !inView(m)) closeReader();
    render();
    return from;
  }

  function doAction(act, m) {
    if (act === "archive") {
      const prev = move(m, "archive");
      toast("Conversation archived.", () => { move(m, prev); GB.push("restored", brief(m)); toast("Action undone."); });
    } else if (act === "delete") {
      const prev = move(m, "trash");
      GB.push("deleted", brief(m));
      toast("Conversation moved to Trash.", () => { move(m, prev); GB.push("restored", brief(m)); toast("Action undone."); });
    } else if (act === "inbox") {
      const label = m.box === "snoozed" ? "Conversation unsnoozed." : "Conversation moved to Inbox.";
      move(m, "inbox");
      GB.push("restored", brief(m));
      toast(label);
    } else if (act === "read" || act === "unread") {
      m.unread = act === "unread";
      GB.push("read_changes", { ...brief(m), read: !m.unread });
      render();
    }
  }

  // Snooze menu.
  const menu = $("snoozemenu");
  let snoozeTarget = null;
  function openSnooze(m, btn) {
    snoozeTarget = m;
    const r = btn.getBoundingClientRect();
    menu.hidden = false;
    menu.style.top = Math.min(r.bottom + 4, innerHeight - menu.offsetHeight - 8) + "px";
    menu.style.left = Math.max(8, r.right - menu.offsetWidth) + "px";
    menu.querySelector("button").focus();
  }
  function closeSnooze() { menu.hidden = true; snoozeTarget = null; }
  for (const b of menu.querySelectorAll("button")) b.addEventListener("click", () => {
    const m = snoozeTarget;
    closeSnooze();
    if (!m) return;
    const prev = move(m, "snoozed");
    GB.push("snoozed", { ...brief(m), until: b.dataset.until });
    toast(`Snoozed until ${b.dataset.until.toLowerCase()}.`, () => { move(m, prev); GB.push("restored", brief(m)); toast("Action undone."); });
  });
  document.addEventListener("mousedown", (e) => { if (!menu.hidden && !menu.contains(e.target)) closeSnooze(); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") { closeSnooze(); } });

  // ---- reading pane --------------------------------------------------------------------------
  function openMessage(m) {
    openId = m.id;
    m.unread = false; // opening a conversation marks it read, as webmails do
    $("reader-empty").hidden = true;
    $("reader-msg").hidden = false;
    $("replybox").hidden = true;
    $("reader-subject").textContent = m.subject;
    $("reader-name").textContent = m.from;
    $("reader-addr").textContent = `<${m.addr}>`;
    $("reader-avatar").textContent = m.from.split(/\s+/).map((w) => w[0]).slice(0, 2).join("");
    $("reader-avatar").style.background = ["#2f9e6f", "#e0873a", "#8a63d2", "#2f6fe4", "#c2477a"][m.from.length % 5];
    $("reader-date").textContent = m.date;
    $("reader-body").innerHTML = m.body.map((p) => `<p>${p}</p>`).join("");
    const at = $("reader-attach");
    at.hidden = !m.attach;
    if (m.attach) {
      const ext = m.attach.name.split(".").pop().toUpperCase();
      at.innerHTML = `<div class="attach"><span class="attach__icon">${ext}</span><span><b></b><span class="muted small">${m.attach.size}</span></span></div>`;
      at.querySelector("b").textContent = m.attach.name;
    }
    render();
  }
  function closeReader() {
    openId = null;
    $("reader-empty").hidden = false;
    $("reader-msg").hidden = true;
  }
  $("reader-close").addEventListener("click", () => { closeReader(); render(); });
  let replyMode = "Re";
  function startReply(mode) {
    const m = byId[openId];
    if (!m) return;
    replyMode = mode;
    $("replybox").hidden = false;
    $("reply-to").textContent = mode === "Re" ? `Reply to ${m.from}` : "Forward — add recipients in the To line when sending";
    $("reply-text").value = "";
    $("reply-text").focus();
  }
  $("reader-reply").addEventListener("click", () => startReply("Re"));
  $("reader-forward").addEventListener("click", () => startReply("Fwd"));
  $("reply-discard").addEventListener("click", () => { $("replybox").hidden = true; });
  $("replybox").addEventListener("submit", (e) => {
    e.preventDefault();
    const m = byId[openId];
    if (!m) return;
    GB.push("sent", { to: replyMode === "Re" ? m.from : "", subject: `${replyMode}: ${m.subject}` });
    $("replybox").hidden = true;
    toast("Message sent.");
  });

  // ---- compose & search ----------------------------------------------------------------------
  $("compose-btn").addEventListener("click", () => { $("composer").hidden = false; $("c-to").focus(); });
  $("composer-close").addEventListener("click", () => { $("composer").hidden = true; });
  $("composer-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (!$("c-to").value.trim()) { $("c-to").focus(); return; }
    GB.push("sent", { to: $("c-to").value.trim(), subject: $("c-subject").value.trim() });
    $("composer-form").reset();
    $("composer").hidden = true;
    toast("Message sent.");
  });
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    query = $("search").value.trim();
    closeReader();
    render();
  });
  $("refresh").addEventListener("click", render);

  render();
})();
