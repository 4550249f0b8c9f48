// 每个入口（npm run demo、npm test、npm run exercise、npm run book、步骤里的 npm start……）最先运行的检查：
// Node 太旧时说一行中文并以 1 结束，而不是让 tsx 卡住（20.0）、让 vitest 崩出一屏堆栈（vite 与 rolldown 要 20.19，
// util.styleText 要 20.12，--watch 要 20.6）。
// 故意写成最老的 JavaScript（var、function、没有箭头函数与模板字符串）：这个文件要在它拒绝的那些 Node 上也能被读懂。
// 支持的版本与 package.json 的 engines 一致：^20.19.0 || ^22.12.0 || >=24.0.0（vitest 不支持 21、23 这两个奇数版本）。
"use strict";

/** 每个受支持的大版本最低要到哪个小版本；不在表里的大版本（21、23、19……）不受支持，比 LAST 新的都可以。 */
var MINIMUM = { 20: [20, 19], 22: [22, 12] };
var LAST = 24;
var ENGINES = "^20.19.0 || ^22.12.0 || >=24.0.0";

/** 版本号（"20.0.0" 或 "v20.0.0"）不够新时返回一句说明，够新时返回 null。 */
function nodeVersionProblem(version) {
  var parts = String(version).replace(/^v/, "").split(".");
  var major = Number(parts[0]);
  var minor = Number(parts[1]);
  var ok = false;
  if (major >= LAST) ok = true;
  else if (Object.prototype.hasOwnProperty.call(MINIMUM, major)) ok = minor >= MINIMUM[major][1];
  if (ok) return null;
  return (
    "这个项目需要 Node.js 20.19 以上的 20.x、22.12 以上的 22.x，或 24 及更新的版本，当前是 v" + String(version).replace(/^v/, "") +
    "：请到 https://nodejs.org 下载 LTS 版本，或用 nvm、fnm 安装（例如 nvm install 22），再重新运行。"
  );
}

/** 检查当前的 Node：不够新就打印那一句并以 1 结束。 */
function checkNode(version) {
  var problem = nodeVersionProblem(version);
  if (problem === null) return;
  process.stderr.write(problem + "\n");
  process.exit(1);
}

module.exports = { nodeVersionProblem: nodeVersionProblem, ENGINES: ENGINES };

if (require.main === module) checkNode(process.versions.node);
