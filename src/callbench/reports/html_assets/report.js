// callbench HTML report: the trace viewer. Builds every node with createElement/textContent;
// run data (model and caller text) never passes through innerHTML. The data block is base64 of
// gzipped JSON (see html.py); it is inflated with the browser's DecompressionStream, so the viewer
// starts asynchronously, and says so in its own area if it cannot (the rest of the page is static).
(function () {
  "use strict";
  var data = {}, calls = [], byKey = {}, rows = [], groups = {};
  var filterCand, filterText;
  var list = document.getElementById("call-list");
  var view = document.getElementById("call-view");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return parent;
  }
  function json(value, pretty) {
    if (typeof value === "string") return value;
    try { return JSON.stringify(value, null, pretty ? 2 : 0); } catch (e) { return String(value); }
  }
  function short(value, limit) {
    var text = json(value, false);
    limit = limit || 140;
    return text.length <= limit ? text : text.slice(0, limit - 1) + "\u2026";
  }
  function score(v) { return typeof v === "number" ? v.toFixed(1) : "n/m"; }
  function segments(parent, segs, cls) {
    segs.forEach(function (s) { add(parent, s[1] ? el("mark", cls, s[0]) : s[0]); });
    return parent;
  }

  // ------------------------------------------------------------ the data block
  function base64Bytes(text) {
    // chunks of whole 4-character groups through atob, then a plain loop: no per-character callbacks
    text = text.replace(/\s+/g, "");
    if (text.length % 4) throw new Error("the data block is not base64 (length " + text.length + ")");
    var pad = text.slice(-2) === "==" ? 2 : (text.slice(-1) === "=" ? 1 : 0);
    var bytes = new Uint8Array(text.length / 4 * 3 - pad), out = 0, CHUNK = 1 << 18;
    for (var at = 0; at < text.length; at += CHUNK) {
      var bin = atob(text.slice(at, at + CHUNK));
      for (var i = 0; i < bin.length; i++) bytes[out++] = bin.charCodeAt(i);
    }
    return bytes;
  }
  function inflate(bytes) {
    if (typeof DecompressionStream !== "function" || typeof Response !== "function" || typeof Blob !== "function") {
      throw new Error("this browser cannot decompress it (no DecompressionStream; Chrome 80+, Firefox 113+ and Safari 16.4+ can)");
    }
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  }
  function loadData() {
    return Promise.resolve().then(function () {
      var block = document.getElementById("callbench-data");
      if (!block) throw new Error("the page has no data block");
      return inflate(base64Bytes(block.textContent));
    }).then(function (text) { return JSON.parse(text); });
  }
  function failed(err) {
    var msg = el("div", "note bad");
    add(msg, el("p", null, "The trace viewer could not read the traces embedded in this page: " +
      ((err && err.message) || String(err)) + "."),
      el("p", null, "The tables and plots above do not depend on them."));
    list.replaceChildren(msg);
    list.setAttribute("data-state", "failed");
    view.replaceChildren();
  }

  // ------------------------------------------------------------ the list of calls
  function buildList() {
    filterCand = el("select");
    filterText = el("input");
    filterText.type = "search";
    filterText.placeholder = "filter scenarios\u2026";
    add(filterCand, el("option", null, "all candidates"));
    filterCand.firstChild.value = "";
    (data.candidates || []).forEach(function (name) {
      var o = el("option", null, name);
      o.value = name;
      filterCand.appendChild(o);
    });
    var table = el("table", "grid calls"), tbody = el("tbody");
    var head = el("tr");
    ["call", "task", "conv.", "ok", "end"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    add(table, add(el("thead"), head), tbody);
    rows = calls.map(function (c) {
      var card = c.card || {}, tr = el("tr");
      if (!groups[c.candidate]) {
        var g = el("tr", "group"), th = el("th", null, c.candidate);
        th.colSpan = 5;
        add(tbody, add(g, th));
        groups[c.candidate] = g;
      }
      var btn = el("button", "call-link", c.scenario + " r" + c.repeat);
      btn.type = "button";
      btn.setAttribute("data-call", c.key);
      btn.addEventListener("click", function () { location.hash = "call=" + encodeURIComponent(c.key); });
      var ok = card.outcome === "excluded" ? el("span", "bad", "excl.") :
        (card.deterministic_passed ? el("span", "good", "\u2713") : el("span", "bad", "\u2717"));
      add(tr, add(el("td"), btn), el("td", "num", score((card.task || {}).score)),
        el("td", "num", score((card.conversation || {}).score)), add(el("td", "num"), ok),
        el("td", "sub", (c.trace.end || {}).reason || card.end_reason || "none"));
      tbody.appendChild(tr);
      return { tr: tr, call: c };
    });
    filterCand.addEventListener("change", applyFilter);
    filterText.addEventListener("input", applyFilter);
    list.replaceChildren(add(el("div", "filters"), filterCand, filterText), add(el("div", "scroll"), table));
    if (!calls.length) list.appendChild(el("p", "note", "No traces were found in this run folder."));
  }

  function applyFilter() {
    var cand = filterCand.value, text = filterText.value.toLowerCase();
    rows.forEach(function (r) {
      var show = (!cand || r.call.candidate === cand) && (!text || r.call.key.toLowerCase().indexOf(text) >= 0);
      r.tr.hidden = !show;
    });
    Object.keys(groups).forEach(function (name) {
      groups[name].hidden = !rows.some(function (r) { return r.call.candidate === name && !r.tr.hidden; });
    });
  }

  // ------------------------------------------------------------ one call
  function channelEvent(e) {
    var line = el("div", "channel" + (e.applied ? " applied" : " unapplied"));
    add(line, "~ channel " + e.kind + " (" + e.origin + ", " + e.anchor + "): " + (e.detail || ""));
    if (e.before !== null && e.before !== undefined && e.kind !== "split") {
      add(line, "  ", el("del", null, e.before), " \u2192 ", el("ins", null, e.after || "(nothing)"));
    }
    if (!e.applied) add(line, " [not applied]");
    return line;
  }
  function matcherList(results) {
    var ul = el("ul", "matchers");
    results.forEach(function (r) {
      var li = el("li", r.ok ? "ok" : "fail");
      add(li, (r.ok ? "\u2713 " : "\u2717 ") + r.path + " " + r.matcher + ": expected ", el("code", null, short(r.expected, 80)),
        ", got ", el("code", null, short(r.actual, 80)), r.reason ? " \u2014 " + r.reason : "");
      if (r.children && r.children.length) li.appendChild(matcherList(r.children));
      ul.appendChild(li);
    });
    return ul;
  }
  function jsonBlock(label, value) {
    var d = el("details", "json");
    add(d, add(el("summary"), el("span", "dim", label + " "), el("code", null, short(value, 110))),
      el("pre", null, json(value, true)));
    return d;
  }

  // a turn through the audio channel: its sound as the other side heard it, and what was recognised
  function player(call, rec) {
    var src = rec ? (call.audio || {})[rec.audio_path] : null;
    if (!src) return null;
    var a = el("audio");
    a.controls = true;
    a.preload = "none";
    a.src = src;
    a.setAttribute("data-audio", rec.audio_path);
    var wer = typeof rec.wer === "number" ? " (WER " + (rec.wer * 100).toFixed(0) + "%)" : "";
    return add(el("div", "audio"), a, el("span", "dim", " heard: " + rec.recognised + wer));
  }
  function transcript(call, citedBy, focusVerdict) {
    var t = call.trace, box = el("div", "transcript"), agentAudio = 0;
    var turns = {}, events = {};
    (t.caller_turns || []).forEach(function (turn) {
      (turn.message_indices || []).forEach(function (idx, k) { turns[idx] = { turn: turn, k: k }; });
    });
    (t.tool_events || []).forEach(function (e) { events[e.index] = e; });
    (t.messages || []).forEach(function (m) {
      var entry = el("div", "entry role-" + m.role);
      entry.setAttribute("data-index", m.index);
      entry.id = "m-" + m.index;
      var idx = el("span", "idx", "#" + m.index);
      var bodyDiv = el("div", "body");
      add(entry, idx, bodyDiv);
      if (m.role === "caller") {
        var info = turns[m.index], turn = info ? info.turn : null, k = info ? info.k : 0;
        var diff = turn ? (call.diffs || {})[String(turn.turn)] : null;
        var nfrag = turn ? turn.observed.length : 1;
        if (turn && k === 0) {
          if (diff) add(bodyDiv, segments(add(el("div", "meant"), el("span", "dim", "caller meant: ")), diff.intended, "lost"));
          (turn.channel_events || []).forEach(function (e) { bodyDiv.appendChild(channelEvent(e)); });
        }
        // background speech (a casting intrusion) is marked as such; the plan steps go on the caller's own first words
        var noise = turn ? (turn.channel_events || []).filter(function (e) { return e.kind === "intrusion" && e.applied; })
          .map(function (e) { return e.after; }) : [];
        var isNoise = !!turn && noise.indexOf(turn.observed[k]) >= 0;
        var firstOwn = turn ? turn.observed.findIndex(function (f) { return noise.indexOf(f) < 0; }) : 0;
        var who = el("span", "who caller", isNoise ? "CALLER (background)" : k === firstOwn ? "CALLER" : "CALLER (cont.)");
        var steps = turn && k === firstOwn && !isNoise && turn.expressed_steps && turn.expressed_steps.length ? " [step " + turn.expressed_steps.join(", ") + "]" : "";
        var frag = nfrag > 1 ? " fragment " + (k + 1) + "/" + nfrag : "";
        var line = add(el("div", "say"), who, el("span", "dim", steps + frag + " "));
        if (diff && diff.fragments[k]) segments(line, diff.fragments[k], "damage"); else add(line, m.text || "");
        bodyDiv.appendChild(line);
        var heard = player(call, turn && turn.audio ? turn.audio[k] : null);
        if (heard) bodyDiv.appendChild(heard);
      } else if (m.role === "candidate") {
        if (m.text) {
          add(bodyDiv, add(el("div", "say"), el("span", "who agent", "AGENT "), m.text));
          var spoken = player(call, (t.agent_audio || [])[agentAudio++]);
          if (spoken) bodyDiv.appendChild(spoken);
        }
        if (m.error) add(bodyDiv, el("div", "error", "\u2717 agent error: " + m.error));
        if (m.raw) add(bodyDiv, jsonBlock("raw output", m.raw));
        (m.tool_calls || []).forEach(function (c) {
          var args;
          try { args = JSON.parse(c.raw_arguments); } catch (e) { args = c.raw_arguments; }
          var call_ = add(el("div", "toolcall"), el("span", "arrow", "\u2192 "), el("b", null, c.name), "(",
            el("code", null, short(args, 400)), ")");
          bodyDiv.appendChild(call_);
        });
      } else {
        var e = events[m.index];
        if (!e) {
          add(bodyDiv, el("div", "tool", "\u2190 " + (m.tool_name || "tool") + ": " + short(m.text || "")));
        } else {
          var flags = [e.response_source];
          if (e.queue_position !== null && e.queue_position !== undefined) flags.push("queue #" + e.queue_position);
          if (e.parse_error) flags.push("PARSE ERROR");
          if (!e.known_tool) flags.push("UNKNOWN TOOL");
          if (e.ends_call_tool) flags.push(e.ended_call ? "ENDED CALL" : "end tool FAILED");
          var failed = (e.matcher_results || []).some(function (r) { return !r.ok; });
          var bad = failed || e.parse_error || ["mismatch", "unknown_tool", "limit"].indexOf(e.response_source) >= 0;
          add(bodyDiv, add(el("div", "tool" + (bad ? " bad" : "")), el("span", "arrow", "\u2190 "), el("b", null, e.name),
            " [" + flags.join(", ") + "] ", el("span", "dim", "called at #" + e.call_message_index)));
          if (e.parse_error) add(bodyDiv, el("div", "error", "arguments: " + e.parse_error));
          add(bodyDiv, jsonBlock("arguments", e.arguments !== null && e.arguments !== undefined ? e.arguments : e.raw_arguments));
          if (e.matcher_results && e.matcher_results.length) bodyDiv.appendChild(matcherList(e.matcher_results));
          bodyDiv.appendChild(jsonBlock("returned", e.result));
          if (e.concluding_message) add(bodyDiv, el("div", "dim", "concluding message: " + e.concluding_message));
        }
      }
      var cites = citedBy[m.index];
      if (cites && cites.length) {
        var c = add(el("div", "citedby"), "cited by ");
        cites.forEach(function (id) {
          var b = el("button", "vref", id);
          b.type = "button";
          b.addEventListener("click", function () { focusVerdict(id); });
          c.appendChild(b);
        });
        bodyDiv.appendChild(c);
      }
      box.appendChild(entry);
    });
    (t.unapplied_channel_events || []).forEach(function (e) { box.appendChild(channelEvent(e)); });
    if (t.end) add(box, el("div", "end", "END: " + t.end.reason + " \u2014 " + (t.end.detail || "")));
    if (t.failure) add(box, el("div", "error", "FAILURE (" + t.failure.failure_class + "): " + t.failure.kind + ": " + t.failure.detail));
    (t.reruns || []).forEach(function (f) { add(box, el("div", "dim", "rerun after " + f.kind + ": " + f.detail)); });
    return box;
  }

  function highlight(indices) {
    view.querySelectorAll(".entry.cited").forEach(function (n) { n.classList.remove("cited"); });
    var first = null;
    indices.forEach(function (i) {
      var node = view.querySelector('.entry[data-index="' + Number(i) + '"]');
      if (node) { node.classList.add("cited"); first = first || node; }
    });
    if (first) first.scrollIntoView({ block: "center" });
  }

  function verdictPanel(call, card) {
    var panel = el("div", "verdicts"), present = {};
    (call.trace.messages || []).forEach(function (m) { present[m.index] = true; });
    var items = (card.items || []).slice();
    var order = { task: 0, conversation: 1 };
    items.sort(function (a, b) { return (order[a.pillar] - order[b.pillar]) || ((a.r === null) - (b.r === null)); });
    var measured = el("div"), unmeasured = el("details", "unmeasured"), nUnmeasured = 0;
    items.forEach(function (it) {
      var v = el("div", "verdict label-" + it.label);
      v.setAttribute("data-id", it.id);
      var title = el("button", "vtitle", it.id);
      title.type = "button";
      title.addEventListener("click", function () { focus(v, it.evidence || []); });
      add(v, add(el("div", "vhead"), el("span", "badge " + it.label, it.label.replace("_", " ")), title,
        el("span", "dim", " " + it.pillar + " \u00b7 " + it.kind + " \u00b7 w" + it.weight + " \u00b7 " + it.grader +
          " \u00b7 " + it.diagnostic + (it.rating !== null && it.rating !== undefined ? " \u00b7 rating " + it.rating + "/5" : ""))));
      if (it.detail) v.appendChild(el("div", "vdetail", it.detail));
      if (it.judge) v.appendChild(el("div", "dim", "judge: " + (it.judge.model || "?")));
      var ev = add(el("div", "evidence"), "evidence: ");
      if (!it.evidence || !it.evidence.length) add(ev, el("span", "dim", "none cited"));
      (it.evidence || []).forEach(function (i) {
        var link = el("button", "ev-link" + (present[i] ? "" : " missing"), "#" + i);
        link.type = "button";
        link.setAttribute("data-index", i);
        if (!present[i]) link.title = "not in the trace";
        link.addEventListener("click", function () { focus(v, [i]); });
        add(ev, link, " ");
      });
      v.appendChild(ev);
      if (it.r === null) { unmeasured.appendChild(v); nUnmeasured++; } else measured.appendChild(v);
    });
    function focus(v, indices) {
      panel.querySelectorAll(".verdict.active").forEach(function (n) { n.classList.remove("active"); });
      v.classList.add("active");
      highlight(indices);
    }
    add(panel, el("h4", null, "Verdicts (" + items.length + ")"), measured);
    if (nUnmeasured) {
      unmeasured.insertBefore(el("summary", null, nUnmeasured + " not measured"), unmeasured.firstChild);
      panel.appendChild(unmeasured);
    }
    panel.focusVerdict = function (id) {
      var v = panel.querySelector('.verdict[data-id="' + CSS.escape(id) + '"]');
      if (!v) return;
      if (v.parentNode === unmeasured) unmeasured.open = true;
      panel.querySelectorAll(".verdict.active").forEach(function (n) { n.classList.remove("active"); });
      v.classList.add("active");
      v.scrollIntoView({ block: "nearest" });
    };
    return panel;
  }

  function openCall(key) {
    var call = byKey[key];
    rows.forEach(function (r) { r.tr.classList.toggle("open", r.call.key === key); });
    if (!call) { view.replaceChildren(el("p", "note", "No call " + key + " in this report.")); return; }
    var t = call.trace, card = call.card || null;
    var facts = el("div", "facts");
    function fact(k, v, cls) { add(facts, add(el("span", cls), el("b", null, k + " "), String(v))); }
    fact("candidate", t.candidate); fact("scenario", t.scenario_id); fact("agent", t.agent_id);
    fact("repeat", t.repeat); fact("caller", t.caller); fact("seed", t.seed);
    fact("end", t.end ? t.end.reason : "none", t.end && t.end.reason === "end_tool" ? "" : "bad");
    fact("outcome", t.outcome, t.outcome === "completed" ? "" : "bad");
    if (card) {
      fact("task", score(card.task.score) + (card.task.unmeasured_items ? " (" + card.task.unmeasured_items + " not measured)" : ""));
      fact("conversation", score(card.conversation.score) + (card.conversation.unmeasured_items ? " (" + card.conversation.unmeasured_items + " not measured)" : ""));
      fact("overall", score(card.overall));
      fact("deterministic", card.deterministic_passed ? "all met" : "not all met", card.deterministic_passed ? "good" : "bad");
    }
    if (typeof t.wall_seconds === "number") {
      fact("wall", t.wall_seconds >= 1 ? t.wall_seconds.toFixed(2) + " s" : (t.wall_seconds * 1000).toPrecision(3) + " ms");
    }
    var panel = card ? verdictPanel(call, card) : el("div", "verdicts note", "No scorecard found for this call.");
    var focusVerdict = function (id) { if (panel.focusVerdict) panel.focusVerdict(id); };
    var citedBy = {};
    if (card) (card.items || []).forEach(function (it) {
      (it.evidence || []).forEach(function (i) { (citedBy[i] = citedBy[i] || []).push(it.id); });
    });
    view.replaceChildren(el("h3", null, call.key), facts, add(el("div", "callgrid"), transcript(call, citedBy, focusVerdict), panel));
  }

  function route() {
    var h = location.hash.slice(1);
    if (h.indexOf("call=") === 0) {
      openCall(decodeURIComponent(h.slice(5)));
      document.getElementById("calls").scrollIntoView();
    } else if (h.indexOf("calls=") === 0) {
      var parts = h.slice(6).split("/").map(decodeURIComponent);
      filterCand.value = (data.candidates || []).indexOf(parts[0]) >= 0 ? parts[0] : "";
      filterText.value = parts.length > 1 ? parts[0] + "/" + parts[1] + "/" : "";
      applyFilter();
      document.getElementById("calls").scrollIntoView();
    }
  }

  function start(loaded) {
    data = loaded && typeof loaded === "object" ? loaded : {};
    calls = data.calls || [];
    calls.forEach(function (c) { byKey[c.key] = c; });
    buildList();
    window.addEventListener("hashchange", route);
    route();
    list.setAttribute("data-state", "ready");
  }
  list.replaceChildren(el("p", "note", "Loading the calls\u2026"));
  list.setAttribute("data-state", "loading");
  loadData().then(start, failed);
})();
