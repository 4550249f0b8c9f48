/**
 * npm run provider：单独起一个本地脚本服务器，让 npm start 连过来，亲手试各种失败。
 * 服务器与全部参数在 labs/scripted-provider/（见它的 README）；这里只把本步骤的剧本交给它。
 */

import { describeError } from "./guards/shown.js";
import { decideReply } from "./fake-model.js";
import { loadScriptedProvider } from "./local-provider.js";
import { triggerOf } from "./rules.js";

const { runProviderCli } = await loadScriptedProvider().catch((error: unknown) => {
  console.error(describeError(error)); // 单独复制出来的步骤目录里没有工具包：一行说明
  process.exit(1);
});
await runProviderCli(process.argv.slice(2), { answer: decideReply, triggerOf });
