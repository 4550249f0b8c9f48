/**
 * 练习 9（第 8.7 章）：一条新的重试策略——「还没吐字就失败」时，在 StreamFn 这一层悄悄重来。
 *
 * HTTP 层只管拿到 2xx 之前；有的服务先回 200、再在流的第一个事件里说 overloaded。
 * 这时屏幕上一个字都还没有，重来一次用户看不出任何痕迹；已经吐了字就不行了，只能交给回合层。
 * 检查器用一个按剧本出错的假 StreamFn 喂它，数调用次数、看交出去的事件。
 * 「只要出错就重试」的写法会把已吐出的字重复一遍，也会去重试额度用完这种等多久都没用的错误；
 * 把失败的 done 也转发出去的写法，会让下游在重试成功之前就以为这一轮结束了。
 */

import { attempt, expectThat, importFrom, loadExport, show, withDeadline } from "./helpers.ts";
import { generatedName, type Random } from "./random.ts";
import type { Check, Exercise } from "./types.ts";

interface Message {
  role: "assistant";
  content: Array<{ type: "text"; text: string }>;
  stopReason: string;
  errorMessage?: string;
}
type StreamEvent = { type: "text_delta"; delta: string } | { type: "done"; message: Message };
type StreamFn = (context: unknown, options?: { signal?: AbortSignal }) => AsyncIterable<StreamEvent>;
type Wrap = (streamFn: StreamFn, options?: { maxRetries?: number; baseDelayMs?: number }) => StreamFn;

const FILE = "exercises/first-token-retry.ts";

const OVERLOADED = "overloaded_error：Overloaded";
const QUOTA = "HTTP 429：insufficient_quota：You exceeded your current quota";
const CUT = "流在结束前中断：terminated：other side closed（UND_ERR_SOCKET）";

/** 一次调用的剧本：先吐哪些字，再以什么结束。 */
interface Attempt {
  text?: string[];
  error?: string;
  aborted?: boolean;
}

/** 按剧本逐次出招的假 StreamFn；记下被调用了几次、每次拿到的 signal。 */
function scripted(script: Attempt[]) {
  const calls: Array<{ signal?: AbortSignal }> = [];
  const fn: StreamFn = async function* (_context, options) {
    const index = calls.length;
    calls.push({ ...(options?.signal ? { signal: options.signal } : {}) });
    const step = script[Math.min(index, script.length - 1)] ?? {};
    let text = "";
    for (const delta of step.text ?? []) {
      text += delta;
      yield { type: "text_delta", delta };
    }
    const content = text ? [{ type: "text" as const, text }] : [];
    if (step.aborted) yield { type: "done", message: { role: "assistant", content, stopReason: "aborted" } };
    else if (step.error) yield { type: "done", message: { role: "assistant", content, stopReason: "error", errorMessage: step.error } };
    else yield { type: "done", message: { role: "assistant", content, stopReason: "stop" } };
  };
  return { fn, calls };
}

interface Seen {
  text: string;
  done: Message[];
  threw?: string;
}

async function consume(stream: StreamFn, signal?: AbortSignal, afterDone?: () => void): Promise<Seen> {
  const seen: Seen = { text: "", done: [] };
  try {
    for await (const event of stream({ messages: [{ role: "user", content: "你好" }] }, signal ? { signal } : undefined)) {
      if (event.type === "text_delta") seen.text += event.delta;
      else {
        seen.done.push(event.message);
        afterDone?.();
      }
    }
  } catch (error) {
    seen.threw = error instanceof Error ? error.message : String(error);
  }
  return seen;
}

const describe = (seen: Seen, calls: number): string =>
  seen.threw !== undefined
    ? `抛出了异常：${seen.threw}`
    : `内层被调用 ${calls} 次；下游收到文字 ${show(seen.text)}、${seen.done.length} 个 done（${seen.done.map((message) => message.stopReason + (message.errorMessage ? `：${message.errorMessage}` : "")).join("；")}）`;

/** 几种可以重试的瞬时故障与几种不可重试的错误（是不是可重试，以步骤自己的分类器为准）。 */
const TRANSIENT = [OVERLOADED, "HTTP 503：Service Unavailable", "HTTP 529：overloaded", "rate limit exceeded, please retry"];
const FATAL = [QUOTA, "HTTP 401：invalid x-api-key", "HTTP 400：billing hard limit reached"];

/**
 * 随机用例：先是随机几次（至少一次）「还没吐字就瞬时故障」，然后以成功、吐了字才断、不可重试的错误三者之一结束；
 * maxRetries 也是随机的。期望的调用次数与结局按规则推出来。
 */
function generated(random: Random, retryable: (message: string) => boolean): Array<{ why: string; script: Attempt[]; maxRetries: number; calls: number; text: string; stopReason: string }> {
  const cases = [];
  for (const ending of random.shuffle(["success", "cut", "fatal"] as const).slice(0, 2)) {
    // 至少一次故障、至少允许重试一次：每条随机用例都要真的重试过（maxRetries=0 由固定用例管）
    const maxRetries = random.int(1, 3);
    const failures = random.int(1, 4);
    const text = Array.from({ length: random.int(1, 3) }, () => random.text(random.int(1, 3), ["cjk", "astral"]));
    const last: Attempt = ending === "success" ? { text } : ending === "cut" ? { text, error: CUT } : { error: random.pick(FATAL) };
    const script: Attempt[] = [...Array.from({ length: failures }, () => ({ error: random.pick(TRANSIENT) })), last, { text: ["不该走到这一次"] }];
    // 按规则推演：没吐字、可重试、还有次数 → 再来一次
    let calls = 0;
    for (;;) {
      const step = script[calls] ?? {};
      calls++;
      const retry = (step.text ?? []).length === 0 && step.error !== undefined && retryable(step.error) && calls - 1 < maxRetries;
      if (!retry) {
        const stopReason = step.error === undefined ? "stop" : "error";
        const why = `${failures} 次瞬时故障后${ending === "success" ? "成功" : ending === "cut" ? "吐了字才断" : "遇到不可重试的错误"}，maxRetries=${maxRetries}`;
        cases.push({ why, script, maxRetries, calls, text: (step.text ?? []).join(""), stopReason });
        break;
      }
    }
  }
  return cases;
}

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const loaded = await loadExport<Wrap>(stepDir, FILE, "retryBeforeFirstToken", "function");
  if (loaded.value === undefined) return [loaded.check];
  const wrap = loaded.value;
  const checks: Check[] = [loaded.check];
  const fast = { maxRetries: 2, baseDelayMs: 1 };

  /** 一个用例：剧本、期望的调用次数、期望下游看到的文字与最后的 stopReason。 */
  const cases: Array<[string, Attempt[], number, string, string]> = [
    ["一次就成功：原样转发，不多调用", [{ text: ["你好", "！"] }], 1, "你好！", "stop"],
    ["还没吐字就 overloaded，两次之后成功：下游只看到成功的那一次", [{ error: OVERLOADED }, { error: OVERLOADED }, { text: ["你好"] }], 3, "你好", "stop"],
    ["已经吐出「你好」才断：不重试（字收不回来），原样交出错误", [{ text: ["你好"], error: CUT }, { text: ["你好", "！"] }], 1, "你好", "error"],
    ["额度用完（不可重试）：一次都不重试", [{ error: QUOTA }, { text: ["你好"] }], 1, "", "error"],
    ["一直 overloaded：重试 maxRetries=2 次后放弃，交出最后的错误", [{ error: OVERLOADED }], 3, "", "error"],
    ["内层报告已取消：不重试", [{ aborted: true }, { text: ["你好"] }], 1, "", "aborted"],
  ];
  for (const [name, script, calls, text, stopReason] of cases) {
    checks.push(
      ...(await attempt(name, async () => {
        const inner = scripted(script);
        const seen = await consume(wrap(inner.fn, fast));
        const ok = seen.threw === undefined && inner.calls.length === calls && seen.text === text && seen.done.length === 1 && seen.done[0]?.stopReason === stopReason;
        return expectThat(name, ok, describe(seen, inner.calls.length), `内层被调用 ${calls} 次；下游收到文字 ${show(text)}、1 个 done（${stopReason}）`);
      })),
    );
  }

  const zeroName = "maxRetries=0：不重试";
  checks.push(
    ...(await attempt(zeroName, async () => {
      const inner = scripted([{ error: OVERLOADED }, { text: ["你好"] }]);
      const seen = await consume(wrap(inner.fn, { maxRetries: 0, baseDelayMs: 1 }));
      return expectThat(zeroName, seen.threw === undefined && inner.calls.length === 1 && seen.done.at(-1)?.stopReason === "error", describe(seen, inner.calls.length));
    })),
  );

  const signalName = "取消信号原样交给每一次内层调用";
  checks.push(
    ...(await attempt(signalName, async () => {
      const inner = scripted([{ error: OVERLOADED }, { text: ["你好"] }]);
      const controller = new AbortController();
      await consume(wrap(inner.fn, fast), controller.signal);
      const ok = inner.calls.length === 2 && inner.calls.every((call) => call.signal === controller.signal);
      return expectThat(signalName, ok, `内层被调用 ${inner.calls.length} 次，收到信号的次数：${inner.calls.filter((call) => call.signal === controller.signal).length}`);
    })),
  );

  // 等待中按 Ctrl+C：等待要能被打断，结局是 aborted，不再调用内层
  const waitName = "在两次尝试之间的等待里取消（等待设成 60 秒）：立刻结束，stopReason 是 aborted，不再调用内层";
  checks.push(
    ...(await attempt(waitName, async () => {
      const inner = scripted([{ error: OVERLOADED }, { text: ["你好"] }]);
      const controller = new AbortController();
      const innerFn: StreamFn = async function* (context, options) {
        for await (const event of inner.fn(context, options)) {
          yield event;
          // 内层的第一次失败交出去之后，下一刻就按下 Ctrl+C
          if (event.type === "done") setImmediate(() => controller.abort());
        }
      };
      const seen = await withDeadline(consume(wrap(innerFn, { maxRetries: 2, baseDelayMs: 60_000 }), controller.signal), 5_000, "等待没有被取消打断").catch(
        (error: unknown): Seen => ({ text: "", done: [], threw: error instanceof Error ? error.message : String(error) }),
      );
      return expectThat(waitName, seen.threw === undefined && inner.calls.length === 1 && seen.done.length === 1 && seen.done[0]?.stopReason === "aborted", describe(seen, inner.calls.length));
    }, 15_000)),
  );

  // 随机用例：是不是可重试，问步骤自己的分类器（学习者也被提示用它）
  const { isRetryableAssistantError } = await importFrom<{ isRetryableAssistantError(message: Message): boolean }>(stepDir, "src/retry/classify.ts");
  const retryable = (errorMessage: string) => isRetryableAssistantError({ role: "assistant", content: [], stopReason: "error", errorMessage });
  const fresh = generated(random, retryable);
  for (const [index, { why, script, maxRetries, calls, text, stopReason }] of fresh.entries()) {
    const name = `${generatedName(index + 1, fresh.length, why)}：${script.slice(0, -1).map((step) => (step.text ? `吐字 ${show(step.text.join(""))}` : "") + (step.error ? `${step.text ? "后" : ""}失败「${step.error}」` : step.text ? "后成功" : "")).join(" → ")}`;
    checks.push(
      ...(await attempt(name, async () => {
        const inner = scripted(script);
        const seen = await consume(wrap(inner.fn, { maxRetries, baseDelayMs: 1 }));
        const ok = seen.threw === undefined && inner.calls.length === calls && seen.text === text && seen.done.length === 1 && seen.done[0]?.stopReason === stopReason;
        return expectThat(name, ok, describe(seen, inner.calls.length), `内层被调用 ${calls} 次；下游收到文字 ${show(text)}、1 个 done（${stopReason}）`);
      })),
    );
  }
  return checks;
}

export const exercise09: Exercise = {
  id: 9,
  step: "step09-retry-timeout",
  chapter: "8.7",
  title: "一条新的重试策略：还没吐字就失败时，在 StreamFn 这一层重来",
  file: FILE,
  hints: [
    "先分诊，再决定：取消永远不重试；错误要先问分类器「值不值得重试」；还要多看一件分类器不管的事——这次调用有没有已经把字交给了下游。失败的那个 done 只有在决定不再重试时才交出去。",
    "分诊用 src/retry/classify.ts 的 isRetryableAssistantError；等待用 src/retry/backoff.ts 的 sleep(ms, signal)（被取消时返回 false）和 turnRetryDelay(attempt, baseDelayMs)。包装 StreamFn 的写法可以参照 src/guard.ts 的 withModelTimeout。新文件 exercises/first-token-retry.ts 导出 retryBeforeFirstToken(streamFn, { maxRetries, baseDelayMs })。",
    "export function retryBeforeFirstToken(streamFn: StreamFn, options = {}): StreamFn {\n  return async function* (context, streamOptions) {\n    for (let attempt = 0; ; attempt++) {\n      let sentText = false; let failed;\n      for await (const event of streamFn(context, streamOptions)) {\n        if (event.type === \"text_delta\") { sentText = true; yield event; continue; }\n        // done：要重试吗？（没吐字、可重试、还有次数、没取消）要 → 记下，不转发；不要 → yield event\n      }\n      if (!failed) return;\n      // 可取消地等 turnRetryDelay(attempt + 1, baseDelayMs)；被取消 → yield 一条 stopReason 为 \"aborted\" 的 done，return\n    }\n  };\n}",
  ],
  check,
};
