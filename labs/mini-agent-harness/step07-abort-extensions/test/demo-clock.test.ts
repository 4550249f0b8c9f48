/**
 * demo 场景 2 的「一张时间表」：token 与取消排在同一张时间表上，进程被调度得再晚，结果也不变。
 * 这里用忙等（while 循环占住事件循环）模拟一台忙到发不出定时器的机器：卡在两个 token 之间、卡过取消的时刻、
 * 卡过下一个 token 的时刻，屏幕上留下的都必须恰好是时间表上取消之前的那几个 token。
 * 时间表缩小十倍（每 20 毫秒一个 token，第 70 毫秒取消），和 demo 的 200/700 是同一笔账。
 */
import { describe, expect, it } from "vitest";

import { runAgentLoop } from "../src/agent-loop.js";
import { abortOnSchedule, createFakeModel, tokenize } from "../src/fake-model.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { Context, StreamFn } from "../src/types.js";

const DELAY = 20;
const ABORT_AT = 70; // 第 3 个 token（60）之后、第 4 个（80）之前

/** 占住事件循环 ms 毫秒：这期间任何定时器都发不出来 */
function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // 忙等
  }
}

/** 书里 700 毫秒那一幕留下的三个 token（expected-output.txt 里的「这是一段很长」） */
const expectedTokens = (): string[] => tokenize("这是一段很长");

/** 像 demo 的 say() 那样跑一轮；每收到一个 token 就调用一次 stall（第几个 token） */
async function run(model: StreamFn, controller: AbortController, stall: (tokens: number) => void = () => {}) {
  const context: Context = { messages: [{ role: "user", content: "说个长的" }] };
  const deltas: string[] = [];
  for await (const event of runAgentLoop({ streamFn: model, context, tools: createBuiltinTools(), toolContext: { cwd: process.cwd() }, signal: controller.signal })) {
    if (event.type === "text_delta") {
      deltas.push(event.delta);
      stall(deltas.length);
    }
  }
  const last = context.messages.at(-1);
  return { deltas, stopReason: last?.role === "assistant" ? last.stopReason : undefined };
}

function scheduled(): { model: StreamFn; controller: AbortController } {
  const controller = new AbortController();
  return { controller, model: abortOnSchedule(createFakeModel({ delayMs: DELAY }), { delayMs: DELAY, abortAtMs: ABORT_AT, controller }) };
}

describe("abortOnSchedule：取消与 token 在同一张时间表上", () => {
  const cases: Array<[string, (tokens: number) => void]> = [
    ["不卡", () => {}],
    ["每个 token 之后都卡 2.5 个间隔", () => busyWait(DELAY * 2.5)],
    ["第 2 个 token 之后卡过第 3 个 token、取消和第 4 个 token 的时刻", (n) => n === 2 && busyWait(DELAY * 4)],
    ["第 3 个 token 之后卡过取消和第 4 个 token 的时刻", (n) => n === 3 && busyWait(DELAY * 5)],
    ["第 1 个 token 之后卡过整张时间表", (n) => n === 1 && busyWait(DELAY * 10)],
  ];
  for (const [name, stall] of cases) {
    it(`${name}：恰好留下前三个 token，stopReason 是 aborted`, async () => {
      const { model, controller } = scheduled();
      expect(await run(model, controller, stall)).toEqual({ deltas: expectedTokens(), stopReason: "aborted" });
    });
  }

  it("一个与对话无关的定时器在取消前后卡住事件循环：结果不变", async () => {
    const { model, controller } = scheduled();
    const stalls = [DELAY * 2.5, ABORT_AT - 5, ABORT_AT + 5].map((at) => setTimeout(() => busyWait(DELAY * 3), at));
    try {
      expect(await run(model, controller)).toEqual({ deltas: expectedTokens(), stopReason: "aborted" });
    } finally {
      for (const t of stalls) clearTimeout(t);
    }
  });

  it("对照：另起一个 setTimeout(abort) 时，进程卡过 token 的时刻，后面的 token 就全都抢在取消前面（所以 demo 不再这样写）", async () => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // 定时器在第 1 个 token 到达时才排（离取消还有 ABORT_AT - DELAY 毫秒）：机器再忙，它也不会抢在第 1 个 token 前面，
    // 对照的结论只取决于「卡住」本身。卡过整张时间表之后，到期的 token 在同一串微任务里连着吐出，定时器插不进来。
    const stall = (n: number) => {
      if (n !== 1) return;
      timer = setTimeout(() => controller.abort(), ABORT_AT - DELAY);
      busyWait(DELAY * 10);
    };
    try {
      const { deltas } = await run(createFakeModel({ delayMs: DELAY }), controller, stall);
      expect(deltas.length).toBeGreaterThan(expectedTokens().length);
    } finally {
      clearTimeout(timer);
    }
  });
});
