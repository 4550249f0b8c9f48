/**
 * 子进程入口：在 Node ≥ 22.19 上用真实的 AgentSession 跑一批场景，把结果写成一行 JSON。
 * 由 pi-side.ts 的 runPiSessions 调用；参数是 JSON：[[场景 id, 协议], …]。
 */
import { runPiSession } from "./pi-session.ts";
import { SCENARIOS, type Api } from "./scenarios.ts";

const RESULT_MARK = "@@pi-session-results@@";
const jobs = JSON.parse(process.argv[2] ?? "[]") as Array<[string, Api]>;
const results = [];
for (const [id, api] of jobs) {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (!scenario) throw new Error(`没有这个场景：${id}`);
  results.push(await runPiSession(scenario, api));
}
process.stdout.write(`\n${RESULT_MARK}${JSON.stringify(results)}\n`);
