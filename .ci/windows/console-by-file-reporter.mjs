// vitest 报告器：把每个测试文件打印到控制台的行按文件收集，测试结束时写成 JSON（路径由 CONSOLE_BY_FILE_JSON 给出）。
// 测试跳过时在文件加载时打印原因（例如 console.warn("[跳过] …")），而 vitest 的 JSON 报告里没有控制台输出；
// summary.mjs 再按文件把两者对上，按原因给跳过的测试分组。只在 CI 的 Windows 阶段使用。
import fs from "node:fs";

export default class ConsoleByFileReporter {
  onInit(vitest) {
    this.vitest = vitest;
    this.lines = {};
  }

  onUserConsoleLog(log) {
    const task = log.taskId === undefined ? undefined : this.vitest.state.idMap.get(log.taskId);
    const file = task?.file?.filepath ?? "(不知道是哪个文件)";
    const lines = log.content.split(/\r?\n/).filter((line) => line.trim() !== "");
    (this.lines[file] ??= []).push(...lines);
  }

  onTestRunEnd() {
    const out = process.env.CONSOLE_BY_FILE_JSON;
    if (out) fs.writeFileSync(out, JSON.stringify(this.lines, null, 2));
  }
}
