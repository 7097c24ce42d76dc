// kconnect dashboard: a view of Kafka Connect's REST API, served by the worker it talks to.
// One request a refresh for every connector (`GET /connectors?expand=status&expand=info`), so a
// cluster of hundreds of connectors costs the same as one. Text from the API is only ever set as
// text (never as HTML).

const REFRESH_MS = 3000;
const STATES = ["FAILED", "RUNNING", "PAUSED", "STOPPED", "UNASSIGNED", "RESTARTING"];
const base = new URL("/", window.location.href); // the worker's root: the page is at /dashboard

const view = {
  connectors: {}, // name -> {status, info}
  expanded: new Set(),
  selected: new Set(),
  offsets: {}, // name -> offsets body, for STOPPED connectors shown expanded
  offsetDrafts: {}, // name -> offsets text being edited, kept across refreshes
  metrics: null, // "connector/task" -> {total, rate}, when the worker serves /metrics
  lastTotals: null, // the previous scrape's totals and time, for rates
};

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function badge(state) {
  return el("span", { class: `badge state-${state}` }, state);
}

async function call(method, path, query = {}, body = undefined) {
  const url = new URL(path, base);
  for (const [key, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(key, one);
  }
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(url, {
    method, credentials: "same-origin", headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let answer = null;
  try { answer = text ? JSON.parse(text) : null; } catch { answer = text; }
  if (!response.ok) {
    const message = answer && answer.message ? answer.message : `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return answer;
}

function say(text, error = false) {
  const message = document.getElementById("message");
  message.textContent = text;
  message.className = error ? "error" : "";
}

function failed(entry) {
  const status = entry.status;
  return status.connector.state === "FAILED" || status.tasks.some((task) => task.state === "FAILED");
}

function taskSummary(tasks) {
  if (!tasks.length) return "no tasks";
  const counts = {};
  for (const task of tasks) counts[task.state] = (counts[task.state] || 0) + 1;
  return STATES.filter((state) => counts[state]).map((state) => `${counts[state]} ${state.toLowerCase()}`).join(", ");
}

function shown() {
  const search = document.getElementById("search").value.trim().toLowerCase();
  const state = document.getElementById("state-filter").value;
  return Object.entries(view.connectors)
    .filter(([name]) => !search || name.toLowerCase().includes(search))
    .filter(([, entry]) => !state || entry.status.connector.state === state || entry.status.tasks.some((t) => t.state === state))
    .sort(([a, x], [b, y]) => (failed(y) - failed(x)) || a.localeCompare(b));
}

function renderCounts() {
  const connectors = {};
  const tasks = {};
  for (const entry of Object.values(view.connectors)) {
    connectors[entry.status.connector.state] = (connectors[entry.status.connector.state] || 0) + 1;
    for (const task of entry.status.tasks) tasks[task.state] = (tasks[task.state] || 0) + 1;
  }
  for (const [id, counts] of [["connector-counts", connectors], ["task-counts", tasks]]) {
    const list = document.getElementById(id);
    list.replaceChildren(...STATES.filter((s) => counts[s]).map((state) =>
      el("li", {}, el("button", {
        class: `state-${state}`, "data-state": state, title: `show ${state}`,
        onclick: () => { document.getElementById("state-filter").value = state; render(); },
      }, `${counts[state]} ${state}`))));
    if (!list.children.length) list.append(el("li", { class: "muted" }, "none"));
  }
}

function actionButtons(name, state) {
  const act = (label, action) => el("button", { "data-action": action, onclick: () => run(action, [name]) }, label);
  const buttons = [];
  if (state === "PAUSED" || state === "STOPPED") buttons.push(act("Resume", "resume"));
  else buttons.push(act("Pause", "pause"));
  buttons.push(act("Restart", "restart"));
  buttons.push(el("button", { "data-action": "edit", onclick: () => openForm(name) }, "Edit"));
  if (state !== "STOPPED") buttons.push(act("Stop", "stop"));
  const remove = act("Delete", "delete");
  remove.className = "danger";
  buttons.push(remove);
  return el("span", { class: "actions" }, ...buttons);
}

function details(name, entry) {
  const status = entry.status;
  const parts = [];
  if (status.connector.trace) parts.push(el("h3", {}, "Connector trace"), el("pre", { class: "trace" }, status.connector.trace));
  const rows = status.tasks.map((task) => el("tr", { "data-task": task.id },
    el("td", {}, task.id), el("td", {}, badge(task.state)), el("td", {}, task.worker_id || ""),
    el("td", { class: "task-records" }, taskRecords(name, task.id)),
    el("td", {}, task.trace ? el("pre", { class: "trace" }, task.trace) : ""),
    el("td", {}, el("button", { "data-action": "restart-task", onclick: () => restartTask(name, task.id) }, "Restart task"))));
  if (rows.length) {
    parts.push(el("h3", {}, "Tasks"), el("table", { class: "tasks" },
      el("thead", {}, el("tr", {}, el("th", {}, "Id"), el("th", {}, "State"), el("th", {}, "Worker"), el("th", {}, "Records"), el("th", {}, "Trace"), el("th", {}, ""))),
      el("tbody", {}, ...rows)));
  }
  if (status.connector.state === "STOPPED") {
    const offsets = view.offsets[name];
    const text = el("textarea", { class: "offsets", "aria-label": `offsets of ${name}` });
    text.value = offsets ? JSON.stringify(offsets.offsets, null, 2) : "loading…";
    if (view.offsetDrafts[name] !== undefined) text.value = view.offsetDrafts[name];
    text.addEventListener("input", () => { view.offsetDrafts[name] = text.value; });
    parts.push(el("h3", {}, "Offsets"), text, el("p", {},
      el("button", { "data-action": "alter-offsets", onclick: () => alterOffsets(name, text.value) }, "Alter offsets"), " ",
      el("button", { "data-action": "reset-offsets", onclick: () => resetOffsets(name) }, "Reset offsets")));
    if (!offsets) loadOffsets(name);
  }
  const config = entry.info ? entry.info.config : {};
  parts.push(el("h3", {}, "Config"), el("pre", { class: "config" },
    Object.keys(config).sort().map((key) => `${key}=${config[key]}`).join("\n")));
  return el("tr", { class: "details", "data-details": name }, el("td", { colspan: 8 }, ...parts));
}

function render() {
  renderCounts();
  const body = document.querySelector("#connectors tbody");
  const rows = [];
  const entries = shown();
  for (const [name, entry] of entries) {
    const state = entry.status.connector.state;
    const box = el("input", { type: "checkbox", "aria-label": `select ${name}`, onchange: (event) => {
      if (event.target.checked) view.selected.add(name); else view.selected.delete(name);
      updateSelected();
    } });
    box.checked = view.selected.has(name);
    const toggle = el("button", { class: "link", onclick: () => {
      if (view.expanded.has(name)) view.expanded.delete(name); else view.expanded.add(name);
      render();
    } }, name);
    rows.push(el("tr", { "data-connector": name, class: failed(entry) ? "failed" : "" },
      el("td", {}, box), el("td", {}, toggle), el("td", {}, entry.status.type || ""),
      el("td", {}, badge(state)), el("td", {}, entry.status.connector.worker_id || ""),
      el("td", { class: "task-summary" }, taskSummary(entry.status.tasks)),
      el("td", { class: "rate" }, connectorRate(name, entry)), el("td", {}, actionButtons(name, state))));
    if (view.expanded.has(name)) rows.push(details(name, entry));
  }
  // A refresh rebuilds the rows: keep the focus (and the caret) of a field being typed in.
  const active = document.activeElement;
  const focused = active && body.contains(active) ? active.getAttribute("aria-label") : null;
  const caret = focused && "selectionStart" in active ? [active.selectionStart, active.selectionEnd] : null;
  body.replaceChildren(...rows);
  if (focused) {
    const again = body.querySelector(`[aria-label="${CSS.escape(focused)}"]`);
    if (again) { again.focus(); if (caret) again.setSelectionRange(...caret); }
  }
  document.getElementById("empty").hidden = entries.length > 0;
  updateSelected();
}

function updateSelected() {
  for (const name of [...view.selected]) if (!(name in view.connectors)) view.selected.delete(name);
  document.getElementById("selected-count").textContent = `${view.selected.size} selected`;
}

const ACTIONS = {
  pause: (name) => call("PUT", `connectors/${encodeURIComponent(name)}/pause`),
  resume: (name) => call("PUT", `connectors/${encodeURIComponent(name)}/resume`),
  stop: (name) => call("PUT", `connectors/${encodeURIComponent(name)}/stop`),
  delete: (name) => call("DELETE", `connectors/${encodeURIComponent(name)}`),
  restart: (name) => call("POST", `connectors/${encodeURIComponent(name)}/restart`, {
    includeTasks: document.getElementById("include-tasks").checked,
    onlyFailed: document.getElementById("only-failed").checked,
  }),
};

async function run(action, names) {
  if (!names.length) { say("Select connectors first", true); return; }
  if (action === "delete" && !window.confirm(`Delete ${names.join(", ")}?`)) return;
  const results = await Promise.allSettled(names.map((name) => ACTIONS[action](name)));
  const refused = results.map((r, i) => [names[i], r]).filter(([, r]) => r.status === "rejected");
  if (refused.length) say(refused.map(([name, r]) => `${action} ${name}: ${r.reason.message}`).join("; "), true);
  else say(`${action}: ${names.join(", ")}`);
  if (action === "delete") names.forEach((name) => view.selected.delete(name));
  await refresh();
}

async function restartTask(name, id) {
  try {
    await call("POST", `connectors/${encodeURIComponent(name)}/tasks/${id}/restart`);
    say(`restart task ${name}-${id}`);
  } catch (error) { say(`restart task ${name}-${id}: ${error.message}`, true); }
  await refresh();
}

async function loadOffsets(name) {
  try { view.offsets[name] = await call("GET", `connectors/${encodeURIComponent(name)}/offsets`); }
  catch (error) { view.offsets[name] = { offsets: `could not read: ${error.message}` }; }
  render();
}

async function alterOffsets(name, text) {
  let offsets;
  try { offsets = JSON.parse(text); } catch (error) { say(`offsets of ${name}: not JSON: ${error.message}`, true); return; }
  try {
    const answer = await call("PATCH", `connectors/${encodeURIComponent(name)}/offsets`, {}, { offsets });
    say(answer && answer.message ? answer.message : `offsets of ${name} altered`);
    delete view.offsetDrafts[name];
  } catch (error) { say(`alter offsets of ${name}: ${error.message}`, true); }
  delete view.offsets[name];
  await refresh();
}

// --- throughput, from the metrics extension's Prometheus text when the worker serves it ------------

const COUNTERS = /^kafka_connect_(source_task_metrics_source_record_write|sink_task_metrics_sink_record_send)_total\{([^}]*)\} ([0-9.eE+-]+)$/;

function labels(text) {
  const found = {};
  for (const match of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) found[match[1]] = match[2];
  return found;
}

async function loadMetrics() {
  let text;
  try {
    const response = await fetch(new URL("metrics", base), { credentials: "same-origin" });
    if (!response.ok) { view.metrics = null; return; }
    text = await response.text();
  } catch { view.metrics = null; return; }
  const now = Date.now();
  const totals = {};
  for (const line of text.split("\n")) {
    const match = COUNTERS.exec(line);
    if (!match) continue;
    const { connector, task } = labels(match[2]);
    totals[`${connector}/${task}`] = Number(match[3]);
  }
  const metrics = {};
  for (const [key, total] of Object.entries(totals)) {
    const before = view.lastTotals && view.lastTotals.totals[key];
    const seconds = view.lastTotals ? (now - view.lastTotals.at) / 1000 : 0;
    metrics[key] = { total, rate: before !== undefined && seconds > 0 ? Math.max(0, (total - before) / seconds) : null };
  }
  view.lastTotals = { at: now, totals };
  view.metrics = metrics;
}

function taskRecords(name, id) {
  const found = view.metrics && view.metrics[`${name}/${id}`];
  if (!found) return view.metrics ? "" : "–";
  return found.rate === null ? `${found.total}` : `${found.total} (${found.rate.toFixed(0)}/s)`;
}

function connectorRate(name, entry) {
  if (!view.metrics) return "–";
  let rate = null;
  for (const task of entry.status.tasks) {
    const found = view.metrics[`${name}/${task.id}`];
    if (found && found.rate !== null) rate = (rate || 0) + found.rate;
  }
  return rate === null ? "" : rate.toFixed(0);
}

// --- the executor: where this worker's tasks run ---------------------------------------------------

async function loadExecutor() {
  try {
    const placement = await call("GET", "executor");
    const used = placement.slots === null ? `${placement.slots_used} slots used` : `${placement.slots_used} of ${placement.slots} slots used`;
    document.getElementById("executor-summary").textContent =
      `Executor ${placement.executor}: ${used}, ${placement.hosts.length} task hosts, ${placement.tasks_per_host} tasks per host` +
      (placement.unplaced.length ? `, ${placement.unplaced.length} tasks waiting` : "");
    document.getElementById("hosts").replaceChildren(
      el("tr", {}, el("th", {}, "Host"), el("th", {}, "State"), el("th", {}, "Capacity"), el("th", {}, "CPU"), el("th", {}, "Tasks")),
      ...placement.hosts.map((host) => el("tr", {}, el("td", {}, host.id), el("td", {}, badge(host.state)),
        el("td", {}, `${host.tasks.length} / ${host.capacity}${host.dedicated ? " (dedicated)" : ""}`),
        // the share of a core the host's process used lately: new tasks go to the least loaded
        el("td", { class: "host-cpu" }, host.cpu === null ? "–" : `${Math.round(host.cpu * 100)} %`),
        el("td", {}, host.tasks.map((t) => `${t.connector}-${t.task}`).join(", ")))));
  } catch (error) {
    document.getElementById("executor-summary").textContent = `Executor: ${error.message}`;
  }
}

async function resetOffsets(name) {
  try {
    const answer = await call("DELETE", `connectors/${encodeURIComponent(name)}/offsets`);
    say(answer && answer.message ? answer.message : `offsets of ${name} reset`);
  } catch (error) { say(`reset offsets of ${name}: ${error.message}`, true); }
  delete view.offsets[name];
  await refresh();
}

async function refresh() {
  await Promise.all([loadMetrics(), loadExecutor()]);
  try {
    const expanded = await call("GET", "connectors", { expand: ["status", "info"] });
    view.connectors = {};
    for (const [name, entry] of Object.entries(expanded)) {
      if (entry.status) view.connectors[name] = { status: entry.status, info: entry.info };
    }
    for (const name of Object.keys(view.offsets)) if (!(name in view.connectors)) delete view.offsets[name];
    render();
  } catch (error) {
    say(`Cannot read the connectors: ${error.message}`, true);
  }
}

async function header() {
  try {
    const root = await call("GET", "");
    document.getElementById("worker").textContent =
      `Kafka Connect ${root.version} (${root.commit}), Kafka cluster ${root.kafka_cluster_id}`;
  } catch (error) { document.getElementById("worker").textContent = `worker unreachable: ${error.message}`; }
  try {
    const health = await call("GET", "health");
    const node = document.getElementById("health");
    node.textContent = health.status;
    node.className = `badge state-${health.status === "healthy" ? "RUNNING" : "FAILED"}`;
  } catch (error) {
    const node = document.getElementById("health");
    node.textContent = "unhealthy";
    node.className = "badge state-FAILED";
  }
}

// --- the create / edit form, built from the plugin's config definition ------------------------------
// Every change (debounced) asks `PUT /connector-plugins/{plugin}/config/validate` with the values
// typed so far; each key shows its own errors, recommended values and visibility from the answer.

const form = { editing: null, values: {}, timer: null, answer: null, asked: 0 };
const VALIDATE_DELAY_MS = 300;
const FORM_KEYS_NOT_SHOWN = new Set(["name", "connector.class"]);

function formValues() {
  const values = { ...form.values };
  for (const [key, value] of Object.entries(values)) if (value === "") delete values[key];
  values["connector.class"] = document.getElementById("form-plugin").value;
  const name = document.getElementById("form-name").value.trim();
  if (name) values.name = name;
  return values;
}

async function openForm(name = null) {
  const plugins = await call("GET", "connector-plugins", { connectorsOnly: "true" });
  const select = document.getElementById("form-plugin");
  select.replaceChildren(...plugins.map((plugin) => el("option", { value: plugin.class }, `${plugin.class} (${plugin.type})`)));
  form.editing = name;
  form.values = {};
  const nameInput = document.getElementById("form-name");
  nameInput.value = name || "";
  nameInput.disabled = name !== null;
  if (name !== null) {
    const config = view.connectors[name].info.config;
    select.value = config["connector.class"];
    for (const [key, value] of Object.entries(config)) if (!FORM_KEYS_NOT_SHOWN.has(key)) form.values[key] = value;
  }
  select.disabled = name !== null;
  document.getElementById("form-title").textContent = name === null ? "New connector" : `Edit ${name}`;
  document.getElementById("form-submit").textContent = name === null ? "Create" : "Save";
  document.getElementById("connector-form").hidden = false;
  await validateNow();
}

function scheduleValidation() {
  window.clearTimeout(form.timer);
  form.timer = window.setTimeout(validateNow, VALIDATE_DELAY_MS);
}

async function validateNow() {
  const values = formValues();
  const asked = ++form.asked;
  try {
    const answer = await call("PUT", `connector-plugins/${encodeURIComponent(values["connector.class"])}/config/validate`, {}, values);
    if (asked !== form.asked) return; // an older answer arriving late
    form.answer = answer;
    renderForm();
  } catch (error) {
    document.getElementById("form-summary").textContent = `validate: ${error.message}`;
  }
}

function fieldInput(definition, value) {
  const current = form.values[definition.name] ?? "";
  const attributes = { name: definition.name, "aria-label": definition.name, placeholder: definition.default_value ?? "" };
  let input;
  if (definition.type === "BOOLEAN") {
    input = el("select", attributes, el("option", { value: "" }, `default (${definition.default_value ?? "none"})`),
      el("option", { value: "true" }, "true"), el("option", { value: "false" }, "false"));
  } else if (definition.type === "PASSWORD") {
    input = el("input", { ...attributes, type: "password", autocomplete: "off" });
  } else {
    const recommended = (value && value.recommended_values) || [];
    const list = recommended.length ? `values-${definition.name}` : null;
    input = el("input", list ? { ...attributes, list } : attributes);
  }
  input.value = current;
  input.addEventListener("input", () => { form.values[definition.name] = input.value; scheduleValidation(); });
  input.addEventListener("change", () => { form.values[definition.name] = input.value; scheduleValidation(); });
  return input;
}

function renderForm() {
  const answer = form.answer;
  const fields = document.getElementById("form-fields");
  const focused = document.activeElement && document.activeElement.name;
  const byGroup = new Map([[null, []], ...answer.groups.map((group) => [group, []])]);
  for (const info of answer.configs) {
    const definition = info.definition;
    if (!definition || FORM_KEYS_NOT_SHOWN.has(definition.name)) continue;
    if (info.value && info.value.visible === false) continue;
    const group = byGroup.has(definition.group) ? definition.group : null;
    byGroup.get(group).push(info);
  }
  const sets = [];
  for (const [group, infos] of byGroup) {
    if (!infos.length) continue;
    infos.sort((a, b) => a.definition.order - b.definition.order);
    const rows = infos.map(({ definition, value }) => {
      const label = el("label", { class: definition.required ? "required" : "" }, definition.display_name || definition.name);
      const input = fieldInput(definition, value);
      const recommended = input.tagName === "INPUT" && input.getAttribute("list");
      const row = el("div", { class: "field", "data-key": definition.name }, label, input);
      if (recommended) row.append(el("datalist", { id: recommended }, ...value.recommended_values.map((v) => el("option", { value: v ?? "" }))));
      if (definition.documentation) row.append(el("span", { class: "doc" }, `${definition.documentation} (${definition.type}, ${definition.importance.toLowerCase()})`));
      const errors = (value && value.errors) || [];
      row.append(el("span", { class: "errors" }, errors.join(" ")));
      return row;
    });
    sets.push(el("fieldset", {}, el("legend", {}, group ?? "Other"), ...rows));
  }
  fields.replaceChildren(...sets);
  if (focused) {
    const again = fields.querySelector(`[name="${CSS.escape(focused)}"]`);
    if (again) { again.focus(); if (again.setSelectionRange && again.type !== "password") again.setSelectionRange(again.value.length, again.value.length); }
  }
  const nameErrors = answer.configs.filter((info) => info.value && info.value.name === "name").flatMap((info) => info.value.errors);
  const summary = answer.error_count ? `${answer.error_count} error(s)` : "valid";
  document.getElementById("form-summary").textContent = nameErrors.length ? `${summary}; name: ${nameErrors.join(" ")}` : summary;
}

async function submitForm(event) {
  event.preventDefault();
  const values = formValues();
  const name = form.editing ?? values.name;
  if (!name) { say("Give the connector a name", true); return; }
  delete values.name;
  try {
    await call("PUT", `connectors/${encodeURIComponent(name)}/config`, {}, values);
    say(`${form.editing === null ? "created" : "saved"} ${name}`);
    document.getElementById("connector-form").hidden = true;
  } catch (error) {
    say(`${name}: ${error.message}`, true);
  }
  await refresh();
}

function start() {
  document.getElementById("search").addEventListener("input", render);
  document.getElementById("state-filter").addEventListener("change", render);
  document.getElementById("select-all").addEventListener("change", (event) => {
    for (const [name] of shown()) {
      if (event.target.checked) view.selected.add(name); else view.selected.delete(name);
    }
    render();
  });
  for (const button of document.querySelectorAll("[data-bulk]")) {
    button.addEventListener("click", () => run(button.dataset.bulk, [...view.selected]));
  }
  document.getElementById("new-connector").addEventListener("click", () => openForm());
  document.getElementById("form-plugin").addEventListener("change", () => { form.values = {}; validateNow(); });
  document.getElementById("form-name").addEventListener("input", scheduleValidation);
  document.getElementById("connector-form").addEventListener("submit", submitForm);
  document.getElementById("form-cancel").addEventListener("click", () => { document.getElementById("connector-form").hidden = true; });
  header();
  refresh();
  window.setInterval(() => { refresh(); header(); }, REFRESH_MS);
}

start();
