/**
 * npm run step-alone：一个步骤目录离开仓库也能用（DESIGN §2：「单独使用本目录时先 npm install」）。
 *
 * 把步骤目录复制到临时目录里与仓库相同的相对位置（labs/mini-agent-harness/stepNN-…），只是旁边没有仓库：
 * 没有 scripts/（Node 版本检查、练习检查器、toThrow 的严格检查），没有 labs/scripted-provider/ 与 labs/session-viewer/。
 * 在那里 npm install（优先用 npm 缓存），再像学习者一样运行 npm start（标准输入是管道，写完就关）、npm run demo、npm test，
 * 以及仓库里的便利工具（npm run exercise、npm run view）：它们要么照常工作，要么说一行就跳过，从不崩出堆栈。
 *
 * step08、step09 的 demo 与不配密钥的 npm start 要用本地脚本服务器（仓库里的工具包，不复制进步骤）：
 * 单独复制出来时它们说一行怎么办并以 1 结束；配了密钥的 npm start 连这里起的一个服务器（当作真实的模型服务），照常对话；
 * npm test 跳过用到本地服务器的测试，其余照常。--with-provider 再把 labs/scripted-provider 链进副本（npm install -D），
 * demo 与全部测试都要通过。
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { startProviderServer } from "scripted-provider";

import { paint } from "./color.ts";
import { findNpmCli } from "./fresh-check.ts";
import type { Writer } from "./golden-runner.ts";
import { killTree, treeSpawnOptions } from "./kill-tree.ts";
import { labsDir } from "./paths.ts";
import { stepDir, stepNumber } from "./steps.ts";
import { walkFiles } from "./walk-files.ts";

export interface StepAloneOptions {
  root: string;
  steps: string[];
  out: Writer;
  color?: boolean;
  /** step08、09：再把本地脚本服务器链进副本，跑 demo 与全部测试 */
  withProvider?: boolean;
  /** 保留临时目录（排查用） */
  keep?: boolean;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Check {
  name: string;
  ok: boolean;
  /** 比较了什么、结果如何（一行） */
  detail: string;
  seconds: number;
}

// 外层 npm run 带进来的 npm_* 变量会把副本里的 npm 指回仓库；模型配置会让「没配密钥」的运行真的去连服务
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) || /^INIT_CWD$/i.test(name) || name.startsWith("HARNESS_") || /^(OPENAI|ANTHROPIC)_API_KEY$/.test(name)) continue;
    if (name === "SCRIPTED_PROVIDER_CHUNK_DELAY_MS") continue;
    env[name] = value;
  }
  return { ...env, NO_COLOR: "1", FORCE_COLOR: "0", ...extra };
}

function runNpm(args: string[], cwd: string, input: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const npmCli = findNpmCli();
  // 找不到 npm-cli.js 时退回到 PATH 里的 npm；Windows 上 npm 是 npm.cmd，只能经过 shell 启动
  const [command, argv, shell] = npmCli !== undefined ? [process.execPath, [npmCli, ...args], false] : ["npm", args, process.platform === "win32"];
  return new Promise((resolve) => {
    const child = spawn(command, argv, { cwd, env: cleanEnv(env), stdio: ["pipe", "pipe", "pipe"], shell, ...treeSpawnOptions });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdin.on("error", () => {}); // 进程不读标准输入就退出了：写不进去不算错
    child.stdin.end(input);
    // 只防真卡住：整套测试在忙的机器上也用不了这么久
    const timer = setTimeout(() => killTree(child, "SIGKILL"), 15 * 60_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}无法启动 npm：${error.message}\n` });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const lines = (text: string): string[] => text.replace(/\r\n?/g, "\n").split("\n").filter((line) => line.trim() !== "");
const hasStack = (text: string): boolean => /^\s+at .+[:(]/m.test(text);
const tail = (text: string, n = 15): string => lines(text).slice(-n).map((line) => `      ${line}`).join("\n");

const NODE_SKIP = "跳过仓库的 Node 版本检查";
const NO_PROVIDER = "找不到本地脚本服务器";

/** 复制步骤目录（不含 node_modules、.sessions）到 dest */
function copyStep(root: string, step: string, dest: string): number {
  const files = walkFiles(stepDir(root, step));
  for (const rel of files) {
    const to = path.join(dest, ...rel.split("/"));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(path.join(stepDir(root, step), ...rel.split("/")), to);
  }
  return files.length;
}

/** 一个步骤：复制、安装、逐项检查；返回各项结论 */
async function checkStep(options: StepAloneOptions, step: string, tmp: string): Promise<Check[]> {
  const { root, out } = options;
  const p = paint(options.color ?? false);
  const n = stepNumber(step) ?? 0;
  const needsProvider = n >= 8;
  const dir = path.join(tmp, "labs", "mini-agent-harness", step);
  const checks: Check[] = [];
  const check = async (name: string, judge: () => Promise<{ ok: boolean; detail: string; output?: string }>): Promise<boolean> => {
    const started = performance.now();
    const { ok, detail, output } = await judge();
    const c: Check = { name, ok, detail, seconds: (performance.now() - started) / 1000 };
    checks.push(c);
    out.write(`  ${ok ? p.green("✓") : p.red("✗")} ${name}：${detail}（${c.seconds.toFixed(1)} s）\n`);
    if (!ok && output !== undefined && output.trim() !== "") out.write(`${p.dim(tail(output))}\n`);
    return ok;
  };

  out.write(`\n${p.bold(step)} → ${dir}\n`);
  const copied = copyStep(root, step, dir);
  const installed = await check(`npm install（复制了 ${copied} 个文件）`, async () => {
    const r = await runNpm(["install", "--prefer-offline", "--no-audit", "--no-fund"], dir, "");
    return { ok: r.code === 0, detail: `退出码 ${r.code}`, output: r.stdout + r.stderr };
  });
  if (!installed) return checks;

  // npm start：标准输入是管道，写完就关（相当于最后按了 Ctrl+D）
  await check(needsProvider ? "npm start（没配密钥）" : "npm start（你好，然后标准输入结束）", async () => {
    const r = await runNpm(["start", "--silent"], dir, "你好\n");
    const said = lines(r.stderr);
    const output = r.stdout + r.stderr;
    if (hasStack(output)) return { ok: false, detail: "输出里有堆栈", output };
    if (!needsProvider) {
      const ok = r.code === 0 && r.stdout.includes("再见。") && said.length === 1 && said[0]!.includes(NODE_SKIP);
      return { ok, detail: `退出码 ${r.code}，${r.stdout.includes("再见。") ? "说了再见。" : "没说再见。"}，标准错误 ${said.length} 行（期望只有跳过 Node 版本检查那一行）`, output };
    }
    const ok = r.code === 1 && said.length === 2 && said[0]!.includes(NODE_SKIP) && said[1]!.includes(NO_PROVIDER);
    return { ok, detail: `退出码 ${r.code}（期望 1），标准错误 ${said.length} 行：${said.at(-1) ?? "（空）"}`, output };
  });

  if (needsProvider) {
    // 配了密钥：连一个「真实的」模型服务。这里用仓库里的脚本服务器扮演它，副本里的代码并不知道
    await check("npm start（配了密钥，连一个 OpenAI 兼容的服务）", async () => {
      const key = "sk-step-alone-0000";
      const server = await startProviderServer([{ text: "这是远端模型的回答" }], { apiKey: key });
      try {
        const env = { HARNESS_API: "openai", HARNESS_BASE_URL: server.openaiBaseUrl, HARNESS_API_KEY: key, HARNESS_MODEL: "step-alone" };
        const r = await runNpm(["start", "--silent"], dir, "你好\n", env);
        const output = r.stdout + r.stderr;
        const answered = r.stdout.includes("这是远端模型的回答");
        const ok = r.code === 0 && answered && r.stdout.includes("再见。") && server.requests.length === 1 && !output.includes(key) && !hasStack(output);
        return { ok, detail: `退出码 ${r.code}，服务收到 ${server.requests.length} 个请求，${answered ? "回答显示出来了" : "没有显示回答"}，密钥${output.includes(key) ? "出现在输出里" : "没有出现在输出里"}`, output };
      } finally {
        await server.close();
      }
    });
  }

  await check("npm run demo", async () => {
    const r = await runNpm(["run", "demo", "--silent"], dir, "");
    const output = r.stdout + r.stderr;
    if (hasStack(output)) return { ok: false, detail: "输出里有堆栈", output };
    if (needsProvider) {
      const said = lines(r.stderr);
      const ok = r.code === 1 && said.length === 2 && said[1]!.includes(NO_PROVIDER);
      return { ok, detail: `退出码 ${r.code}（期望 1），标准错误 ${said.length} 行：${said.at(-1) ?? "（空）"}`, output };
    }
    const same = r.stdout.replace(/\r\n/g, "\n") === fs.readFileSync(path.join(dir, "expected-output.txt"), "utf8").replace(/\r\n/g, "\n");
    return { ok: r.code === 0 && same, detail: `退出码 ${r.code}，输出与 expected-output.txt ${same ? "逐字一致" : "不一致"}`, output };
  });

  await check("npm test", async () => {
    const r = await runNpm(["test", "--silent"], dir, "");
    const output = r.stdout + r.stderr;
    const summary = vitestSummary(output);
    const skipLines = lines(output).filter((line) => line.startsWith("（"));
    const providerSkip = skipLines.some((line) => line.includes(NO_PROVIDER));
    const ok = r.code === 0 && summary !== "" && providerSkip === needsProvider;
    return { ok, detail: `退出码 ${r.code}，${summary || "没有找到 vitest 的统计行"}；${skipLines.length} 行跳过说明${needsProvider ? (providerSkip ? "（含本地脚本服务器）" : "（缺本地脚本服务器那一行）") : ""}`, output };
  });

  const tools: Array<[string, string]> = [];
  if (n >= 2) tools.push(["exercise", "练习检查器"]);
  if (n >= 6) tools.push(["view", "会话查看器"]);
  for (const [script, what] of tools) {
    await check(`npm run ${script}`, async () => {
      const r = await runNpm(["run", script, "--silent"], dir, "");
      const said = lines(r.stderr);
      const ok = r.code === 0 && said.length === 1 && said[0]!.includes(what) && r.stdout.trim() === "";
      return { ok, detail: `退出码 ${r.code}，${said.length} 行：${said[0] ?? "（空）"}`, output: r.stdout + r.stderr };
    });
  }

  if (needsProvider && options.withProvider === true) {
    const provider = path.join(labsDir(root), "..", "scripted-provider");
    const linked = await check("npm install -D <仓库>/labs/scripted-provider", async () => {
      const r = await runNpm(["install", "-D", "--prefer-offline", "--no-audit", "--no-fund", provider], dir, "");
      return { ok: r.code === 0, detail: `退出码 ${r.code}`, output: r.stdout + r.stderr };
    });
    if (linked) {
      await check("npm run demo（链上本地脚本服务器之后）", async () => {
        const r = await runNpm(["run", "demo", "--silent"], dir, "");
        const same = r.stdout.replace(/\r\n/g, "\n") === fs.readFileSync(path.join(dir, "expected-output.txt"), "utf8").replace(/\r\n/g, "\n");
        return { ok: r.code === 0 && same, detail: `退出码 ${r.code}，输出与 expected-output.txt ${same ? "逐字一致" : "不一致"}`, output: r.stdout + r.stderr };
      });
      await check("npm test（链上本地脚本服务器之后）", async () => {
        const r = await runNpm(["test", "--silent"], dir, "");
        const output = r.stdout + r.stderr;
        const summary = vitestSummary(output);
        const providerSkip = output.includes(NO_PROVIDER);
        return { ok: r.code === 0 && summary !== "" && !providerSkip, detail: `退出码 ${r.code}，${summary}${providerSkip ? "；仍说找不到本地脚本服务器" : ""}`, output };
      });
    }
  }
  return checks;
}

/** vitest 默认报告的两行统计（Test Files …、Tests …），压成一行 */
export function vitestSummary(output: string): string {
  const plain = output.replace(/\u001b\[[0-9;]*m/g, "");
  const files = /^\s*Test Files\s+(.+?)\s*$/m.exec(plain)?.[1];
  const tests = /^\s*Tests\s+(.+?)\s*$/m.exec(plain)?.[1];
  return files !== undefined && tests !== undefined ? `测试文件 ${files}，测试 ${tests}` : "";
}

/** 逐个步骤检查；返回退出码（全部通过才是 0） */
export async function runStepAlone(options: StepAloneOptions): Promise<number> {
  const { out } = options;
  const p = paint(options.color ?? false);
  const started = performance.now();
  const results: Array<{ step: string; checks: Check[]; seconds: number }> = [];
  for (const step of options.steps) {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mah-step-alone-"));
    const t0 = performance.now();
    try {
      results.push({ step, checks: await checkStep(options, step, tmp), seconds: (performance.now() - t0) / 1000 });
    } finally {
      if (options.keep === true) out.write(p.dim(`  副本保留在 ${tmp}`) + "\n");
      else fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    }
  }
  out.write(`\n${p.bold("步骤单独可用")}：\n`);
  for (const { step, checks, seconds } of results) {
    const failed = checks.filter((c) => !c.ok);
    const mark = failed.length === 0 ? p.green("✓") : p.red("✗");
    out.write(`${mark} ${step}：${checks.length - failed.length}/${checks.length} 项通过（${seconds.toFixed(0)} s）${failed.length > 0 ? `；没通过：${failed.map((c) => c.name).join("、")}` : ""}\n`);
  }
  out.write(`用时 ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  return results.every((r) => r.checks.length > 0 && r.checks.every((c) => c.ok)) ? 0 : 1;
}
