// claimhop chat page: sends a claim (or a follow-up) to the LangGraph server it is served by, streams the
// run (stream modes values, messages-tuple, custom, updates) and shows every hop live. No dependencies.
"use strict";

const STREAM_MODES = ["values", "messages-tuple", "custom", "updates"];
const THREAD_TAG = { source: "claimhop-ui" };

const $ = (id) => document.getElementById(id);
const ui = {
  threadId: null, values: {}, running: false, started: 0, nodeStarted: 0, timer: null,
  seenMessages: new Set(), selectionSeen: false, hopCount: 0, mode: null,
};

// ---------- small DOM helpers (text only through textContent: nothing from the server is parsed as HTML)
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
const show = (id, visible = true) => { $(id).hidden = !visible; };
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// ---------- the server's API
// With CLAIMHOP_SERVER_KEY set, the server wants its key in an X-Api-Key header: asked once, kept in this browser.
const KEY_STORE = "claimhop-server-key";
function headersWithKey(extra = {}) {
  const key = localStorage.getItem(KEY_STORE);
  return key ? { ...extra, "X-Api-Key": key } : extra;
}
async function keyed(path, options) {
  let response = await fetch(path, { ...options, headers: headersWithKey(options.headers) });
  if (response.status === 401) {
    const key = window.prompt("This claimhop server needs its key (CLAIMHOP_SERVER_KEY):");
    if (key) {
      localStorage.setItem(KEY_STORE, key.trim());
      response = await fetch(path, { ...options, headers: headersWithKey(options.headers) });
    }
  }
  return response;
}

async function api(path, body) {
  const response = await keyed(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(await problem(response));
  return response.json();
}

// The graph's nodes come from the server (GET /claimhop/nodes, the graph's own node table): the order a claim runs
// them in and the label of each. The page keeps no copy, so a new node shows up here by itself.
const graphNodes = { order: [], labels: {}, loading: null };
function loadNodes() {
  if (!graphNodes.loading) {
    graphNodes.loading = api("/claimhop/nodes").then((table) => {
      graphNodes.order = table.filter((n) => n.claim_path).map((n) => n.name);
      graphNodes.labels = Object.fromEntries(table.map((n) => [n.name, n.label]));
    }).catch((err) => {
      graphNodes.loading = null;  // asked again before the next turn
      throw err;
    });
  }
  return graphNodes.loading;
}

async function problem(response) {
  try {
    const body = await response.json();
    return typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail ?? body);
  } catch { return `${response.status} ${response.statusText}`; }
}

// Server-sent events from a fetch response: yields {event, data}.
async function* serverSentEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (!data.length) continue;
      try { yield { event, data: JSON.parse(data.join("\n")) }; } catch { /* a heartbeat or non-JSON line */ }
    }
  }
}

// ---------- conversation
function bubble(role, text, extraClass = "") {
  const node = el("div", { class: `bubble ${role} ${extraClass}` });
  renderCited(node, text);
  $("conversation").append(node);
  node.scrollIntoView({ block: "nearest" });
  return node;
}

// The answer as the chat shows it: the reference list is in the verdict panel, one click away.
function chatText(message) {
  const text = String(message.content || "");
  return message.name === "mitigate" ? text.split("\n\nReferences:\n")[0] : text;
}

// Text with [n] citations turned into buttons that open the cited passage.
function renderCited(container, text) {
  container.textContent = "";
  const parts = String(text).split(/(\[\d+\])/g);
  for (const part of parts) {
    const match = /^\[(\d+)\]$/.exec(part);
    if (match) container.append(citeButton(Number(match[1])));
    else if (part) container.append(document.createTextNode(part));
  }
}

function citeButton(ref) {
  return el("button", { class: "cite", type: "button", "data-ref": ref, title: "Open the cited passage",
    onclick: () => openEvidence(ref) }, `[${ref}]`);
}

// ---------- timeline
function resetRun(claim) {
  ui.selectionSeen = false;
  ui.hopCount = 0;
  ui.facts = 0;
  $("timeline").textContent = "";
  for (const node of graphNodes.order) {
    $("timeline").append(el("li", { class: "pending", "data-node": node },
      el("span", { class: "dot" }), el("span", { class: "name" }, graphNodes.labels[node]),
      el("span", { class: "time" }), el("div", { class: "detail" })));
  }
  for (const id of ["plan", "hops", "selection", "verdict"]) $(id).textContent = "";
  for (const id of ["plan-panel", "hops-panel", "selection-panel", "verdict-panel"]) show(id, false);
  $("hop-count").textContent = "";
  show("run");
  setNodeState(graphNodes.order[0], "running");
  $("run").dataset.claim = claim;
}

function timelineItem(node) { return $("timeline").querySelector(`li[data-node="${node}"]`); }

function setNodeState(node, state) {
  const item = timelineItem(node);
  if (!item) return;
  if (state === "done" && item.classList.contains("degraded")) return;
  item.classList.remove("pending", "running", "done", "skipped");
  item.classList.add(state);
}

function nodeDetail(node, text) {
  const item = timelineItem(node);
  if (item) item.querySelector(".detail").textContent = text;
}

function nodeFinished(node) {
  const now = performance.now();
  const item = timelineItem(node);
  if (item) {
    const runs = Number(item.dataset.runs || 0) + 1;
    item.dataset.runs = runs;
    const spent = Number(item.dataset.spent || 0) + (now - ui.nodeStarted);
    item.dataset.spent = spent;
    item.querySelector(".time").textContent = (runs > 1 ? `×${runs} · ` : "") + seconds(spent);
    setNodeState(node, "done");
  }
  ui.nodeStarted = now;
  if (node === "later_links" && !timelineItem("gap_loop")?.dataset.runs) {
    // the gap loop is entered only when a name of the claim has no document yet (or when asked to always run)
    setNodeState("gap_loop", "skipped");
    nodeDetail("gap_loop", Number($("max-iterations").value) === 0 ? "turned off"
      : "not needed: every name in the claim already has a document");
  }
  let next = graphNodes.order[graphNodes.order.indexOf(node) + 1];
  if (next === undefined) return;  // the last node: the answer
  // the conditional edges decide what follows bridge and each gap round; this is the likely next step
  if (node === "bridge" && Number($("max-iterations").value) === 0) next = "later_links";
  if (node === "gap_loop") next = "later_links";
  setNodeState(next, "running");
}

// ---------- panels
function listBlock(title, items) {
  if (!items || !items.length) return null;
  return el("div", { class: "block" }, el("h3", {}, title), el("ul", {}, items.map((i) => el("li", {}, i))));
}

function renderHop(hop) {
  ui.hopCount += 1;
  show("hops-panel");
  $("hop-count").textContent = `(${ui.hopCount})`;
  const titles = el("div", { class: "chips" }, (hop.titles || []).map((t) =>
    el("button", { class: "chip", type: "button", onclick: () => openDocument(t) }, t)));
  $("hops").append(el("details", { class: "hop", open: ui.hopCount <= 2 ? "" : null },
    el("summary", {}, el("span", { class: "step" }, hop.step), " ", el("q", {}, hop.query),
      el("span", { class: "muted" }, ` → ${(hop.titles || []).length} titles`)),
    titles));
}

function renderSelection(docs) {
  show("selection-panel");
  $("selection-count").textContent = `(${docs.length})`;
  $("selection").textContent = "";
  for (const doc of docs) {
    const why = [];
    if (doc.claim_entities?.length) why.push(`claim: ${doc.claim_entities.join(", ")}`);
    if (doc.looked_up?.length) why.push(`looked up: ${doc.looked_up.join(", ")}`);
    if (doc.found_by?.length) why.push(`found by ${doc.found_by.join(", ")}`);
    $("selection").append(el("li", {},
      el("button", { class: "doc", type: "button", onclick: () => openDocument(doc.title) }, doc.title),
      el("span", { class: "score", title: "selection score" }, Number(doc.score).toFixed(2)),
      why.length ? el("div", { class: "muted why" }, why.join(" · ")) : null));
  }
}

function renderVerdict(verdict, answer, evidence) {
  show("verdict-panel");
  const body = String(answer || "").split("\n\nReferences:\n")[0].split("\n").filter((line) => !/^(Verdict|Claim): /.test(line)).join("\n").trim();
  const text = el("p", { class: "explanation" });
  renderCited(text, body);
  const refs = el("ol", { class: "references" }, (evidence || []).map((e) => el("li", { value: e.ref },
    citeButton(e.ref), " ", el("strong", {}, e.title), ": ", el("q", {}, e.sentence))));
  $("verdict").textContent = "";
  const model = (String(answer || "").match(/\nModel: (.+)$/) || [])[1];
  const parts = [el("div", { class: `badge ${verdict}` }, verdict.replace("_", " ")), text,
    evidence && evidence.length ? el("h3", {}, "References") : null, refs,
    model ? el("p", { class: "model-note" }, `Model: ${model}`) : null];
  $("verdict").append(...parts.filter(Boolean));  // append(null) would print "null"
}

// ---------- passages
function findDocument(title) { return (ui.values.selected || []).find((d) => d.title === title); }

function openEvidence(ref) {
  const item = (ui.values.evidence || []).find((e) => e.ref === ref);
  if (item) openDocument(item.title, item.sentence, ref);
}

function openDocument(title, sentence, ref) {
  const doc = findDocument(title) || (ui.values.candidates || {})[title];
  $("passage-title").textContent = ref ? `[${ref}] ${title}` : title;
  const meta = [];
  if (doc?.rank) meta.push(`rank ${doc.rank} · score ${Number(doc.score).toFixed(2)}`);
  if (doc?.found_by?.length) meta.push(`found by ${doc.found_by.join(", ")}`);
  if (!doc) meta.push("not among the selected documents");
  $("passage-meta").textContent = meta.join(" · ");
  const target = $("passage-text");
  target.textContent = "";
  const text = doc?.text || "";
  const at = sentence ? text.indexOf(sentence) : -1;
  if (at >= 0) {
    target.append(text.slice(0, at), el("mark", {}, sentence), text.slice(at + sentence.length));
  } else target.textContent = text || sentence || "";
  $("passage").showModal();
}

// ---------- one streamed event
function handle(event, data) {
  if (event === "values") {
    ui.values = data || {};
    if (ui.selectionSeen && ui.values.selected) renderSelection(ui.values.selected);
  } else if (event === "updates") {
    if (ui.mode !== "check") return;
    for (const node of Object.keys(data || {})) if (graphNodes.order.includes(node)) nodeFinished(node);
  } else if (event === "custom") {
    handleCustom(data || {});
  } else if (event === "messages") {
    const [message] = Array.isArray(data) ? data : [data];
    if (!message || message.type !== "ai" && message.type !== "AIMessageChunk") return;
    const key = message.id || `${message.name}:${message.content}`;
    if (ui.seenMessages.has(key)) return;
    ui.seenMessages.add(key);
    if (message.name === "mitigate" || message.name === "follow_up") bubble("ai", chatText(message));
    else if (message.name) nodeDetail(message.name, message.content);
  } else if (event === "error") {
    bubble("error", `The run failed: ${data?.message || data?.error || JSON.stringify(data)}`);
  }
}

function handleCustom(e) {
  if (e.event === "degraded") {
    timelineItem(e.node)?.classList.add("degraded");
    return;
  }
  switch (`${e.node}/${e.event}`) {
    case "intake/claim": ui.mode = "check"; resetRun(e.claim); break;
    case "intake/follow_up": ui.mode = "follow_up"; break;
    case "search_claim/documents":
      show("plan-panel");
      $("plan").append(listBlock("First documents for the claim", (e.documents || []).map((d) => d.title)) || "");
      break;
    case "decompose/sub_questions":
      show("plan-panel");
      $("plan").append(listBlock("Sub-questions", e.sub_questions)); break;
    case "early_gap/gap_analysis":
      $("plan").append(listBlock("Facts needed", e.facts_needed) || "",
        listBlock("Entities to look up", e.entities) || "", listBlock("Gap queries", e.queries) || ""); break;
    case "extract_entities/entities":
      nodeDetail("extract_entities", `Not yet covered: ${(e.entities || []).slice(0, 8).join(", ") || "none"}`); break;
    case "bridge/bridging_entities":
      nodeDetail("bridge", `Looked up: ${(e.entities || []).join(", ") || "none"}`); break;
    case "gap_loop/gap_analysis":
      nodeDetail("gap_loop", `Round ${e.iteration}: ${e.complete ? "nothing missing" :
        `missing ${(e.missing || []).join("; ") || "?"}`} · ${e.new_documents ?? 0} new documents`); break;
    case "later_links/linked":
      nodeDetail("later_links", e.status || `${(e.titles || []).length} new documents`);
      break;
    case "select_documents/selection":
      ui.selectionSeen = true;
      nodeDetail("select_documents", `Kept ${e.selected.length} of ${e.candidates} candidates`);
      renderSelection(e.selected); break;
    case "verify/fact":
      ui.facts += 1;
      if (e.read) {
        nodeDetail("verify", `fact ${ui.facts} quoted from ${(e.quotes || []).map((q) => q.title).join(" + ") || "nothing read"}`);
        break;
      }
      nodeDetail("verify", `fact ${ui.facts}: ${e.verdict.replace("_", " ").toLowerCase()} (${Number(e.confidence).toFixed(2)})` +
        (e.questions || []).map((q) => ` · asked: ${q.question} → ${q.answer}${q.name && q.name !== q.answer ? ` (${q.name})` : ""}`).join(""));
      break;
    case "verify/verdict":
      nodeDetail("verify", `${e.verdict}${e.confidence === undefined ? "" : ` (confidence ${Number(e.confidence).toFixed(2)})`}` +
        ` on ${(e.evidence || []).length} sentences`);
      break;
    case "mitigate/answer": renderVerdict(e.verdict, e.answer, ui.values.evidence); break;
    default:
      if (e.event === "hop") renderHop(e);
  }
}

// ---------- sending a turn
async function send(text) {
  setRunning(true);
  try {
    await loadNodes();  // the timeline is drawn from the graph's node table
    if (!ui.threadId) {
      const thread = await api("/threads", { metadata: { ...THREAD_TAG, title: text.slice(0, 200) } });
      ui.threadId = thread.thread_id;
    }
    bubble("human", text);
    const response = await keyed(`/threads/${ui.threadId}/runs/stream`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        assistant_id: "claimhop", input: { messages: [{ role: "human", content: text }] },
        stream_mode: STREAM_MODES, context: { max_iterations: Number($("max-iterations").value) },
      }),
    });
    if (!response.ok) throw new Error(await problem(response));
    ui.nodeStarted = performance.now();
    for await (const { event, data } of serverSentEvents(response)) handle(event, data);
  } catch (err) {
    bubble("error", err.message);
  } finally {
    setRunning(false);
    loadThreads();
  }
}

function setRunning(running) {
  ui.running = running;
  $("send").disabled = running;
  $("claim").disabled = running;
  clearInterval(ui.timer);
  if (running) {
    ui.started = performance.now();
    ui.timer = setInterval(() => { $("status").textContent = `working · ${seconds(performance.now() - ui.started)}`; }, 250);
  } else {
    $("status").textContent = ui.started ? `done in ${seconds(performance.now() - ui.started)}` : "";
    $("send").textContent = ui.values.answer ? "Send" : "Check";
    $("claim").focus();
  }
}

// ---------- threads (earlier checks)
async function loadThreads() {
  try {
    const threads = await api("/threads/search", { metadata: THREAD_TAG, limit: 50, sort_by: "created_at",
      sort_order: "desc" });
    $("thread-list").textContent = "";
    for (const thread of threads) {
      const verdict = thread.values?.verdict;
      $("thread-list").append(el("li", { class: thread.thread_id === ui.threadId ? "current" : "" },
        el("button", { type: "button", onclick: () => openThread(thread.thread_id) },
          el("span", { class: "thread-title" }, thread.metadata?.title || thread.thread_id),
          verdict ? el("span", { class: `badge small ${verdict}` }, verdict.replace("_", " ")) : null)));
    }
  } catch (err) { /* the list is a convenience; the page works without it */ }
}

async function openThread(threadId) {
  if (ui.running) return;
  try { await loadNodes(); } catch (err) { /* the thread is drawn without the timeline */ }
  const state = await api(`/threads/${threadId}/state`);
  ui.threadId = threadId;
  ui.values = state.values || {};
  $("conversation").textContent = "";
  ui.seenMessages.clear();
  for (const m of ui.values.messages || []) {
    if (m.type === "human") bubble("human", typeof m.content === "string" ? m.content :
      (m.content || []).map((b) => b.text || "").join(" "));
    else if (m.name === "mitigate" || m.name === "follow_up") bubble("ai", chatText(m));
  }
  if (ui.values.answer) {
    resetRun(ui.values.claim);
    for (const li of $("timeline").children) li.className = "done";
    for (const hop of ui.values.hops || []) renderHop(hop);
    ui.selectionSeen = true;
    renderSelection(ui.values.selected || []);
    renderVerdict(ui.values.verdict, ui.values.answer, ui.values.evidence);
  }
  $("send").textContent = "Send";
  document.body.classList.remove("threads-open");
  loadThreads();
}

function newCheck() {
  ui.threadId = null;
  ui.values = {};
  ui.started = 0;
  $("conversation").textContent = "";
  show("run", false);
  $("status").textContent = "";
  $("send").textContent = "Check";
  $("claim").focus();
  loadThreads();
}

// ---------- wiring
$("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("claim").value.trim();
  if (!text || ui.running) return;
  $("claim").value = "";
  send(text);
});
$("claim").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); $("composer").requestSubmit(); }
});
$("new-check").addEventListener("click", newCheck);
$("toggle-threads").addEventListener("click", () => document.body.classList.toggle("threads-open"));
const initial = new URLSearchParams(location.search).get("thread");
// the node table first: a server with a key asks for it once, and the other requests then carry it
loadNodes().catch(() => { /* asked again when a check is sent */ }).finally(() => {
  if (initial) openThread(initial); else loadThreads();
  // which model the server answers with, from its health report (the operator's choice; each answer names its own)
  keyed("/claimhop/health", {}).then((r) => r.json()).then((h) => {
    if (h.default_model) $("model-note").textContent = `Model: ${h.default_model.split(":")[0]}`;
    $("model-note").title = `${h.default_model || ""}. ${$("model-note").title}`;
  }).catch(() => {});
});
