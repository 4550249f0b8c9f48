/**
 * 每个场景的结论与理由：手写，但受测试约束——
 *   - verdict 必须等于两边实跑比出来的结果（不一样却写「相同」、一样却写「不同」，测试都失败）；
 *   - 「不同」的行必须写明不同在哪几个方面（differs），也必须等于实跑结果；
 *   - 每条理由至少带一条 Pi 引用（R12 里由引用检查器逐条核对）。
 * kind：deliberate = 章节点名的有意简化；not-copied = 我们选择不照搬的 Pi 行为。
 */
import type { Aspect } from "./observe.ts";

export interface Reason {
  verdict: "same" | "differs";
  /** verdict 为 differs 时：哪几个方面不同（与实跑结果逐一核对）。 */
  differs?: Aspect[];
  kind?: "deliberate" | "not-copied";
  /** 一段 Markdown：为什么这样（相同的行写 Pi 这样做的依据）。 */
  text: string;
}

export const REASONS: Record<string, Reason> = {
  "cancel-while-streaming": {
    verdict: "same",
    text:
      "两边都把半句话留在运行时历史里（`aborted`），下一次请求前再把它滤掉。Pi：适配器在 signal 已取消时把消息记成 `aborted` " +
      "`@earendil-works/pi-ai@1.6.0 src/api/openai-completions.ts:696-713`（`stopReason`）；`transformMessages` 跳过 `error`/`aborted` 的助手消息 " +
      "`@earendil-works/pi-ai@1.6.0 src/api/transform-messages.ts:212-224`（`closePendingToolCalls`）。",
  },
  "cancel-between-tools": {
    verdict: "differs",
    differs: ["history", "nextRequest"],
    kind: "deliberate",
    text:
      "Pi 的 `Agent` 默认并行执行工具 `@earendil-works/pi-agent-core@1.6.0 src/agent.ts:261`（`toolExecution`）：一批调用先全部开跑，" +
      "全部结束后才依次发出工具结果 `@earendil-works/pi-agent-core@1.6.0 src/agent-loop.ts:646-654`（`orderedFinalizedCalls`），所以第一条结果到达时第二个调用也已跑完；" +
      "之后循环不在轮与轮之间查 signal，又调了一次模型，拿回一条空的 `aborted` 消息才退出 `@earendil-works/pi-agent-core@1.6.0 src/agent-loop.ts:254-265`（`stopReason`）。" +
      "step09 逐个执行，在每个工具之前查 signal（8.5 的「取消点三」），第二个调用不执行、也没有结果；下一次请求前由 transformMessages 补一条 `No result provided`，" +
      "与 Pi 在串行模式下给的 `Operation aborted` 作用相同 `@earendil-works/pi-agent-core@1.6.0 src/agent-loop.ts:708-724`（`prepareToolCall`）。" +
      "这是 8.5 章有意的简化：只有串行执行，取消点写在循环里。",
  },
  "cancel-during-tool": {
    verdict: "differs",
    differs: ["history"],
    kind: "deliberate",
    text:
      "工具结果两边一样（出错，内容是取消的说明），下一次请求也一样。差别只在 Pi 的运行时历史末尾多一条内容为空的 `aborted` 助手消息：" +
      "工具批次正常收尾后 Pi 的循环又调了一次模型，适配器发现 signal 已取消，不发请求（服务器只收到 1 个请求），直接回 `aborted` " +
      "`@earendil-works/pi-agent-core@1.6.0 src/agent-loop.ts:254-265`（`stopReason`）、`@earendil-works/pi-ai@1.6.0 src/api/openai-completions.ts:696-713`（`stopReason`）。" +
      "step09 在下一轮开始之前就查 signal 退出（8.5 的「取消点一」），不再调用模型。这条空消息下一次请求前会被滤掉，所以模型看到的一样。",
  },
  "tool-throws": {
    verdict: "same",
    text:
      "工具抛出的异常两边都变成一条 `isError` 的工具结果，循环照常请求下一轮。Pi：`@earendil-works/pi-agent-core@1.6.0 src/agent-loop.ts:848-856`（`createErrorToolResult`）。" +
      "措辞不同（Pi 只给异常原文，step09 加了「工具 boom 出错：」），不在比较之列。",
  },
  "unknown-tool": {
    verdict: "same",
    text:
      "没有这个工具：两边都给一条错误结果，不执行，继续下一轮。Pi 的措辞是 `Tool nope not found` " +
      "`@earendil-works/pi-agent-core@1.6.0 src/agent-loop.ts:725-732`（`createErrorToolResult`），step09 是「未注册的工具：nope」。",
  },
  "invalid-arguments": {
    verdict: "same",
    text:
      "参数不合 schema：两边都在执行之前拦下，给一条错误结果。Pi 在准备阶段调 `validateToolArguments` " +
      "`@earendil-works/pi-agent-core@1.6.0 src/agent-loop.ts:734-736`（`validateToolArguments`），报出每个字段的问题（缺 `expression`、多了 `expr`）；" +
      "step09 的 validate.ts 只报第一个问题。",
  },
  "thinking-tool-call": {
    verdict: "same",
    text:
      "两种协议下两边都把推理送回去，服务器的协议检查放行，第二轮正常回答。Anthropic：思考块连同签名原样送回。" +
      "OpenAI 兼容：脚本服务器按 DeepSeek 思考模式的规矩检查——调过工具的那条助手消息必须带回 `reasoning_content`。" +
      "Pi 记下推理是从哪个字段来的，下一轮原样写回同名字段 `@earendil-works/pi-ai@1.6.0 src/api/openai-completions.ts:596-603`（`thinkingSignature`）、" +
      "`@earendil-works/pi-ai@1.6.0 src/api/openai-completions.ts:1334-1344`（`isOpenAICompletionsReasoningField`），" +
      "对 DeepSeek 的地址还给没有推理的助手消息补一个空串 `@earendil-works/pi-ai@1.6.0 src/api/openai-completions.ts:1380-1387`（`requiresReasoningContentOnAssistantMessages`）；" +
      "step09 只给带工具调用、有推理的那条消息写上 `reasoning_content`（没调工具的 DeepSeek 会忽略它，为什么这样选见 8.6）。" +
      "两边写出去的字段多寡不同，这里比较的历史与请求里的消息是一样的。",
  },
  "rate-limit-retry-after-ms": {
    verdict: "differs",
    differs: ["events"],
    kind: "not-copied",
    text:
      "请求数与最后的历史一样，重试发生的层不同。Pi 的 HTTP 层重试默认关着（`maxRetries` 缺省 0）" +
      "`@earendil-works/pi-ai@1.6.0 src/utils/provider-retry.ts:111`（`maxRetries`），429 变成一条可重试的错误消息，由回合层按 2 s、4 s… 退避重跑，" +
      "用户看得见 `auto_retry_start` `@earendil-works/pi-coding-agent@1.6.0 src/core/agent-session.ts:3936-3976`（`_prepareRetry`）——等多久由回合层定，不看 `retry-after-ms`。" +
      "step09 的 HTTP 层默认重试 2 次（官方 SDK 的默认值），照 `retry-after-ms` 等，用户看不见。这是 8.7 章有意不照搬的默认值：" +
      "让服务器说的等待时间起作用，并让一次 429 不必惊动回合层。",
  },
  "server-error-twice": {
    verdict: "differs",
    differs: ["events"],
    kind: "not-copied",
    text:
      "与上一行同一个原因：Pi 默认在回合层重试两次（两个 `auto_retry_start`，最后 `auto_retry_end` 成功）" +
      "`@earendil-works/pi-coding-agent@1.6.0 src/core/settings-defaults.ts:18-26`（`retry`），step09 在 HTTP 层悄悄重试两次。请求数都是 3，最后的历史一样。",
  },
  "insufficient-quota": {
    verdict: "same",
    text:
      "额度用完是确定性的失败：两边都只发 1 个请求、不重试，错误分类为 fatal。Pi 的不可重试表里有 `insufficient_quota` " +
      "`@earendil-works/pi-ai@1.6.0 src/utils/retry.ts:7-35`（`NON_RETRYABLE_PROVIDER_LIMIT_ERROR_PATTERN`）；step09 的 HTTP 层与回合层都先查同一张表。",
  },
  "context-overflow": {
    verdict: "differs",
    differs: ["history", "nextRequest", "requests"],
    kind: "deliberate",
    text:
      "两边做的是同一个决定，事件也相同：溢出不走退避重试，把失败的这次尝试从上下文里省略，压缩一次、重试一次 " +
      "`@earendil-works/pi-coding-agent@1.6.0 src/core/agent-session.ts:3173-3216`（`_overflowRecoveryAttempted`）。" +
      "不同在压缩本身：Pi 保留最近约 20 000 token（`keepRecentTokens`，`@earendil-works/pi-coding-agent@1.6.0 src/core/settings-defaults.ts:9-13`（`keepRecentTokens`）），" +
      "把更早的部分交给模型写成摘要 `@earendil-works/pi-coding-agent@1.6.0 src/core/compaction/compaction.ts:611-638`（`completeSummarization`）——这要多一个请求，" +
      "历史开头换成一条 `compactionSummary`，还可能从一轮的中间切开；step09 不调用模型，丢掉最早的整轮、换一句说明（8.7 章点名的简化）。" +
      "早先的对话若短于 `keepRecentTokens`，Pi 没有东西可压，`prepareCompaction` 返回空，它省略失败的尝试后就停下，不重试 " +
      "`@earendil-works/pi-coding-agent@1.6.0 src/core/agent-session.ts:3280-3284`（`prepareCompaction`）；所以这个场景给了三轮很长的早先对话。",
  },
  "stream-cut": {
    verdict: "same",
    text:
      "流到一半断开：已经显示的字收不回来，HTTP 层不管；两边都由回合层把它当可重试的错误，省略失败的尝试、等一会儿重跑，" +
      "事件是一次 `auto_retry_start` 加一次成功的 `auto_retry_end`。Pi：`@earendil-works/pi-coding-agent@1.6.0 src/core/agent-session.ts:1246-1255`（`auto_retry_end`）。",
  },
  "length-stop": {
    verdict: "same",
    text:
      "输出用满了上限（`output` 等于模型的 `maxTokens`）：两边都不重试、不压缩，回复原样留在历史里。Pi 只在输出**没**用满期望上限时才把 length 停止当成可挽回的 " +
      "`@earendil-works/pi-ai@1.6.0 src/utils/overflow.ts:186-188`（`isRecoverableLength`）。",
  },
  "length-stop-short": {
    verdict: "differs",
    differs: ["history", "nextRequest"],
    kind: "not-copied",
    text:
      "输出没用满模型的 `maxTokens` 就因 length 停下，Pi 把它当成「可以挽回的截断」 `@earendil-works/pi-ai@1.6.0 src/utils/overflow.ts:186-188`（`isRecoverableLength`），" +
      "走溢出那条路：先把这条回复从模型上下文里省略，再压缩并重试一次 `@earendil-works/pi-coding-agent@1.6.0 src/core/agent-session.ts:3178-3179`（`isRecoverableLength`）、" +
      "`@earendil-works/pi-coding-agent@1.6.0 src/core/agent-session.ts:3211-3215`（`_omitRecoveryAttempt`）。这里早先的对话太短，没有东西可压，" +
      "`prepareCompaction` 返回空，Pi 就停在这里：用户看见了半截回复，模型的上下文里却没有它，也不重试、不发事件 " +
      "`@earendil-works/pi-coding-agent@1.6.0 src/core/agent-session.ts:3280-3284`（`prepareCompaction`）。" +
      "step09 把 length 停止一律当作这次回复的结局（8.7）：不重试、不压缩，半截回复留在历史里，下一次请求照样带上。",
  },
};
