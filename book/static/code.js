// 代码页的小脚本：按网址里的 #L5-L9 高亮这几行并滚到眼前；明暗主题跟书站一致；「返回」回到来的地方。
(function () {
  var root = document.documentElement;
  var pref = null;
  try { pref = localStorage.getItem("vitepress-theme-appearance"); } catch (e) { /* 隐私模式下没有 localStorage */ }
  if (pref === "dark" || ((pref === null || pref === "auto") && window.matchMedia("(prefers-color-scheme: dark)").matches)) {
    root.classList.add("dark");
  }

  function apply() {
    var old = document.querySelectorAll(".line.hl");
    for (var i = 0; i < old.length; i++) old[i].classList.remove("hl");
    var m = /^#L(\d+)(?:-L(\d+))?$/.exec(location.hash);
    if (!m) { delete document.body.dataset.highlighted; return; }
    var from = Number(m[1]);
    var to = m[2] ? Number(m[2]) : from;
    var first = null;
    for (var n = from; n <= to; n++) {
      var el = document.getElementById("L" + n);
      if (el) { el.classList.add("hl"); if (!first) first = el; }
    }
    document.body.dataset.highlighted = from + "-" + to;
    if (first) first.scrollIntoView({ block: to - from > 12 ? "start" : "center" });
  }
  window.addEventListener("hashchange", apply);
  apply();

  // 点行号：把这一行的链接放进地址栏，方便转给别人
  document.addEventListener("click", function (e) {
    var line = e.target && e.target.closest ? e.target.closest(".line") : null;
    if (!line || e.offsetX > 60 || window.getSelection().toString() !== "") return;
    history.replaceState(null, "", "#" + line.id);
    apply();
  });

  var back = document.getElementById("back");
  if (back && document.referrer) {
    try {
      var ref = new URL(document.referrer);
      if (ref.origin === location.origin && ref.pathname !== location.pathname) {
        back.href = ref.pathname + ref.search;
        back.addEventListener("click", function (e) {
          if (history.length > 1) { e.preventDefault(); history.back(); }
        });
      }
    } catch (e) { /* 坏的 referrer：保留默认的返回地址 */ }
  }
})();
