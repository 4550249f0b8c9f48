// CI 里跳过的测试算失败：读 vitest 的 JSON 报告，列出每个跳过的测试，
// 不在 .ci/skip-allow-list.txt 里的一个也不放过。
//
// 用法：node .ci/check-skips.mjs <阶段名> [--report <vitest 的 JSON 报告>]… [--skip <不是测试的跳过，如「.ci/run > Node 版本矩阵」>]…
//        [--allow-list <名单文件>]（默认 .ci/skip-allow-list.txt；测试用别的名单）
// 退出码：0 = 没有不许的跳过；1 = 有（或报告读不出来、一个测试都没有）。
// 只用 Node 自带的模块：CI 的任何阶段、任何 Node 版本上都能直接跑。
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const defaultAllowList = path.join(repoRoot, ".ci", "skip-allow-list.txt");

/**
 * 名单的格式：每行一个模式，和「文件 > 测试全名」比较，* 代表任意文字；
 * # 开头的行是注释，写在模式上面，说明为什么允许。注释会作为跳过的理由打印出来。
 */
export function readAllowList(text) {
  const entries = [];
  let comment = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") {
      comment = [];
    } else if (line.startsWith("#")) {
      comment.push(line.replace(/^#\s?/, ""));
    } else {
      const escaped = line.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
      entries.push({ pattern: line, regex: new RegExp(`^${escaped}$`), why: comment.join(" ") || "（名单里没写理由）" });
    }
  }
  return entries;
}

/** JSON 报告里跳过的测试：「相对路径 > 全名」 */
export function skippedTests(report, root = repoRoot) {
  const out = [];
  for (const file of report.testResults ?? []) {
    const rel = path.relative(root, file.name).split(path.sep).join("/");
    for (const t of file.assertionResults ?? []) {
      if (t.status === "passed" || t.status === "failed") continue;
      out.push(`${rel} > ${t.fullName}`);
    }
  }
  return out;
}

export function classify(names, allowList) {
  return names.map((name) => {
    const entry = allowList.find((e) => e.regex.test(name));
    return entry ? { name, allowed: true, why: entry.why } : { name, allowed: false };
  });
}

export function main(argv) {
  const [label, ...rest] = argv;
  if (!label) {
    console.error("用法：node .ci/check-skips.mjs <阶段名> [--report <json>]… [--skip <名字>]…");
    return 2;
  }
  const names = [];
  let problems = 0;
  let allowListFile = defaultAllowList;
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]];
    if (value === undefined || !["--report", "--skip", "--allow-list"].includes(flag)) {
      console.error(`不认识的参数：${rest.slice(i).join(" ")}`);
      return 2;
    }
    if (flag === "--skip") {
      names.push(value);
      continue;
    }
    if (flag === "--allow-list") {
      allowListFile = value;
      continue;
    }
    let report;
    try {
      report = JSON.parse(fs.readFileSync(value, "utf8"));
    } catch (error) {
      console.error(`CI 失败：${label}：读不出 vitest 的 JSON 报告 ${value}（${error.message}）`);
      problems++;
      continue;
    }
    if (!report.numTotalTests) {
      console.error(`CI 失败：${label}：报告 ${value} 里一个测试都没有`);
      problems++;
    }
    names.push(...skippedTests(report));
  }

  const allowList = fs.existsSync(allowListFile) ? readAllowList(fs.readFileSync(allowListFile, "utf8")) : [];
  const rows = classify(names, allowList);
  const denied = rows.filter((r) => !r.allowed);
  console.log(`-- ${label}：跳过 ${rows.length} 个（名单允许 ${rows.length - denied.length} 个，不允许 ${denied.length} 个）`);
  for (const r of rows) {
    console.log(r.allowed ? `   允许  ${r.name}\n         理由：${r.why}` : `   不许  ${r.name}\n         不在跳过名单里：CI 里跳过说明安装缺了东西`);
  }
  if (denied.length > 0) console.error(`CI 失败：${label}：${denied.length} 个测试被跳过，不在 .ci/skip-allow-list.txt 里`);
  return denied.length > 0 || problems > 0 ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
