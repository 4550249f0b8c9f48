// 会话查看页的脚本（在浏览器里运行，不联网）。
// 规则只有一条：会话里的内容一律用 textContent 放进页面，从不用 innerHTML。
(function () {
  "use strict";

  /** 一页画多少条：几十万条的会话也只画当前这一页。 */
  var PAGE_SIZE = 200;
  /** 一段文字超过这么长就先折起来，点一下再显示全部。 */
  var LONG_TEXT = 4000;

  var ROLE_LABEL = { user: "用户", assistant: "助手", toolResult: "工具结果" };
  var STOP_LABEL = { stop: "完成", toolUse: "调用工具", aborted: "已取消", error: "出错", length: "被截断（输出上限）" };
  var ERROR_CLASS_LABEL = {
    overflow: "step09 分诊：上下文溢出（压缩，不重试）",
    retryable: "step09 分诊：可重试",
    neither: "step09 分诊：既不是溢出也不可重试（放弃）",
  };

  var data = JSON.parse(document.getElementById("session-data").textContent);
  var app = document.getElementById("app");
  var state = { page: 0, onlyChain: false };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }

  function pretty(value) {
    try {
      return JSON.stringify(value, null, 2);
    } catch (e) {
      return String(value);
    }
  }

  /** 一段可能很长的文字：超过 LONG_TEXT 先只显示开头。 */
  function textBlock(text, className) {
    var full = typeof text === "string" ? text : pretty(text);
    var pre = el("pre", className || "text");
    if (full.length <= LONG_TEXT) {
      pre.textContent = full;
      return pre;
    }
    pre.textContent = full.slice(0, LONG_TEXT);
    var box = add(el("div", "long"), pre);
    var more = el("button", "more", "显示全部（共 " + full.length + " 字）");
    more.type = "button";
    more.addEventListener("click", function () {
      pre.textContent = full;
      more.remove();
    });
    return add(box, more);
  }

  function badge(text, kind) {
    return el("span", "badge " + (kind || ""), text);
  }

  // ── 页头 ─────────────────────────────────────────────────────────

  function header() {
    var c = data.counts;
    var head = el("header", "head");
    add(head, el("h1", "", "会话 " + data.name));
    add(head, el("p", "sub", "按 " + data.step + " 的规则读取 · 只读，没有改动会话文件"));
    var stats = el("dl", "stats");
    [
      ["消息", c.messages, "count-messages"],
      ["用户", c.user, "count-user"],
      ["轮次", c.turns, "count-turns"],
      ["已取消", c.aborted, "count-aborted"],
      ["出错", c.errors, "count-errors"],
      ["工具调用", c.toolCalls, "count-tools"],
      ["不进请求", c.offChain, "count-off"],
    ].forEach(function (item) {
      var box = el("div", "stat " + item[2]);
      add(box, el("dt", "", item[0]), el("dd", "", item[1]));
      stats.appendChild(box);
    });
    add(head, stats);
    add(head, el("p", "hint", "「轮次」= 助手回复的条数（每条是一次模型调用）。左边有色条的是从最后一条沿 parentId 往回走的链；变淡的条目不进请求，旁边写着原因。"));
    if (data.warnings.length > 0) {
      var list = el("ul", "warnings");
      data.warnings.forEach(function (w) {
        list.appendChild(el("li", "", "[警告] " + w));
      });
      add(head, list);
    }
    return head;
  }

  // ── 条目 ─────────────────────────────────────────────────────────

  function entryLink(n, text) {
    var link = el("a", "jump", text);
    link.href = "#entry-" + n;
    link.addEventListener("click", function (event) {
      event.preventDefault();
      show(n);
    });
    return link;
  }

  function usageLine(usage) {
    if (!usage || typeof usage !== "object") return null;
    var parts = [];
    if (typeof usage.input === "number") parts.push("输入 " + usage.input);
    if (typeof usage.output === "number") parts.push("输出 " + usage.output);
    if (typeof usage.cacheRead === "number") parts.push("缓存读 " + usage.cacheRead);
    if (typeof usage.cacheWrite === "number") parts.push("缓存写 " + usage.cacheWrite);
    return parts.length ? el("p", "usage", "用量（token）：" + parts.join(" · ")) : null;
  }

  function assistantBody(entry, message, body) {
    var blocks = Array.isArray(message.content) ? message.content : [message.content];
    blocks.forEach(function (block) {
      if (block && block.type === "text") {
        body.appendChild(textBlock(block.text));
      } else if (block && block.type === "thinking") {
        var details = el("details", "thinking");
        var text = typeof block.thinking === "string" ? block.thinking : pretty(block.thinking);
        add(details, el("summary", "", "思考（" + text.length + " 字，点开查看）"), textBlock(text, "text thinking-text"));
        body.appendChild(details);
      } else if (block && block.type === "toolCall") {
        var call = el("div", "tool-call");
        add(call, el("p", "tool-title", "工具调用 " + block.name + "（" + block.id + "）"), textBlock(pretty(block.arguments), "text args"));
        var result = entry.results && entry.results[block.id];
        add(call, result !== undefined ? entryLink(result, "→ 结果：第 " + (result + 1) + " 条") : el("p", "missing", "没有结果（被取消或出错时会这样）"));
        body.appendChild(call);
      } else if (block !== undefined) {
        body.appendChild(textBlock(pretty(block), "text raw"));
      }
    });
    if (message.errorMessage !== undefined) body.appendChild(el("p", "error-message", "错误：" + message.errorMessage));
    add(body, usageLine(message.usage));
  }

  function entryCard(entry) {
    var message = entry.message && typeof entry.message === "object" ? entry.message : null;
    var role = message ? message.role : undefined;
    var card = el("article", "entry" + (entry.onChain ? " on-chain" : "") + (entry.off ? " off" : ""));
    card.id = "entry-" + entry.n;
    card.dataset.n = String(entry.n);
    if (entry.off) card.dataset.offReason = entry.off.reason;
    if (role) card.dataset.role = String(role);

    var head = el("div", "entry-head");
    add(head, el("span", "num", "#" + (entry.n + 1)), el("span", "role role-" + role, message ? ROLE_LABEL[role] || "未知角色 " + role : "条目类型 " + entry.type));
    add(head, el("span", "ids", entry.id + " ← " + (entry.parentId === null ? "（根）" : entry.parentId) + " · 第 " + entry.line + " 行"));
    if (message && message.stopReason !== undefined) {
      var reason = String(message.stopReason);
      var mark = badge((reason === "aborted" ? "⚠ " : reason === "error" ? "✖ " : "") + (STOP_LABEL[reason] || reason), "stop-" + reason);
      if (reason === "aborted") mark.classList.add("mark-aborted");
      if (reason === "error") mark.classList.add("mark-error");
      head.appendChild(mark);
    }
    if (entry.errorClass) head.appendChild(badge(ERROR_CLASS_LABEL[entry.errorClass], "error-class class-" + entry.errorClass));
    if (entry.skippedInRequest && !entry.off) head.appendChild(badge("发请求时跳过", "skipped"));
    card.appendChild(head);

    if (entry.off) card.appendChild(el("p", "off-reason", "不进请求：" + entry.off.text));
    if (entry.compactedBefore) {
      card.appendChild(el("p", "compaction", "压缩：在这之后省略了 " + entry.compactedBefore + " 条早先的消息，换成一条说明（说明只在运行时上下文里，不在文件里），再重跑这一轮"));
    }

    var body = el("div", "entry-body");
    if (!message) {
      body.appendChild(textBlock(pretty(entry.raw), "text raw"));
    } else if (role === "assistant") {
      assistantBody(entry, message, body);
    } else if (role === "toolResult") {
      add(body, el("p", "tool-title", "工具 " + message.toolName + (message.isError ? "（失败）" : "")));
      if (entry.callEntry !== undefined) body.appendChild(entryLink(entry.callEntry, "← 调用：第 " + (entry.callEntry + 1) + " 条"));
      body.appendChild(textBlock(message.content, message.isError ? "text tool-error" : "text"));
    } else {
      body.appendChild(textBlock(message.content));
    }
    card.appendChild(body);
    return card;
  }

  // ── 分页 ─────────────────────────────────────────────────────────

  function visibleEntries() {
    return state.onlyChain
      ? data.entries.filter(function (e) {
          return !e.off;
        })
      : data.entries;
  }

  function pager(total) {
    var pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    var nav = el("nav", "pager");
    function button(text, page, disabled) {
      var b = el("button", "", text);
      b.type = "button";
      b.disabled = disabled;
      b.addEventListener("click", function () {
        state.page = page;
        render();
        window.scrollTo(0, 0);
      });
      return b;
    }
    add(nav, button("« 第一页", 0, state.page === 0), button("‹ 上一页", state.page - 1, state.page === 0));
    add(nav, el("span", "page-info", "第 " + (state.page + 1) + " / " + pages + " 页（共 " + total + " 条）"));
    add(nav, button("下一页 ›", state.page + 1, state.page >= pages - 1), button("最后一页 »", pages - 1, state.page >= pages - 1));
    return nav;
  }

  function toggle() {
    var label = el("label", "filter");
    var box = el("input");
    box.type = "checkbox";
    box.checked = state.onlyChain;
    box.addEventListener("change", function () {
      state.onlyChain = box.checked;
      state.page = 0;
      render();
    });
    return add(label, box, document.createTextNode(" 只看进请求的条目"));
  }

  /** 跳到第 n 条：先翻到它所在的那一页。 */
  function show(n) {
    state.onlyChain = false;
    state.page = Math.floor(n / PAGE_SIZE);
    render();
    var target = document.getElementById("entry-" + n);
    if (target) {
      target.scrollIntoView();
      target.classList.add("flash");
    }
  }

  var head = header();

  function render() {
    var list = visibleEntries();
    var start = state.page * PAGE_SIZE;
    var timeline = el("section", "timeline");
    list.slice(start, start + PAGE_SIZE).forEach(function (entry) {
      timeline.appendChild(entryCard(entry));
    });
    if (list.length === 0) timeline.appendChild(el("p", "empty", "会话里没有条目。"));
    app.replaceChildren(head, toggle(), pager(list.length), timeline);
    if (list.length > PAGE_SIZE) app.appendChild(pager(list.length));
  }

  render();
  document.documentElement.dataset.ready = "true";
})();
