// Stryker 的一个小报告插件：每个变异体一测完，存活的就追加一行到 reports/mutation/survivors.txt。
// 完整的一次要跑很久；边跑边看得见存活者，就能一边等一边补测试。
import fs from "node:fs";
import path from "node:path";
import { declareClassPlugin, PluginKind } from "@stryker-mutator/api/plugin";

const OUT = path.join("reports", "mutation", "survivors.txt");

class SurvivorsReporter {
  constructor() {
    fs.mkdirSync(path.dirname(OUT), { recursive: true });
    fs.writeFileSync(OUT, "");
    this.sources = new Map();
  }

  onMutantTested(result) {
    if (result.status !== "Survived" && result.status !== "NoCoverage") return;
    const { line } = result.location.start;
    let lines = this.sources.get(result.fileName);
    if (!lines) {
      lines = fs.readFileSync(result.fileName, "utf8").split("\n");
      this.sources.set(result.fileName, lines);
    }
    const file = path.relative(process.cwd(), result.fileName).split(path.sep).join("/");
    const code = (lines[line - 1] ?? "").trim();
    fs.appendFileSync(OUT, `${result.status} ${file}:${line} ${result.mutatorName} → ${JSON.stringify(result.replacement)}  | ${code}\n`);
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Reporter, "survivors", SurvivorsReporter)];
