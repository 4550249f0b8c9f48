// 本目录的 npm 脚本都先经过这里。仓库里的几样便利工具放在步骤目录之外：Node 版本检查（scripts/check-node.cjs）、
// 练习检查器（scripts/exercise.ts）、会话查看器（labs/session-viewer/）。在仓库里就用它们；
// 这个目录被单独复制出去时它们不在，说一行就跳过，npm start、npm run demo、npm test 照常运行。
// 故意写成最老的 JavaScript（同 scripts/check-node.cjs）：Node 版本检查要在它拒绝的那些旧 Node 上也能跑。
//
//   node repo-tools.cjs                 只做 Node 版本检查（后面接 && tsx …）
//   node repo-tools.cjs exercise 7 …    检查之后运行练习检查器，参数原样转交
//   node repo-tools.cjs view …          检查之后运行会话查看器
"use strict";
var fs = require("fs");
var path = require("path");
var childProcess = require("child_process");

var TOOLS = {
  exercise: { file: ["scripts", "exercise.ts"], what: "练习检查器", where: "仓库根目录的 scripts/exercise.ts" },
  view: { file: ["labs", "session-viewer", "src", "cli.ts"], what: "会话查看器", where: "仓库的 labs/session-viewer/" },
};

/** 仓库根目录里的一个文件；本目录被单独复制出去时它不存在。 */
function repoFile(root, parts) {
  return path.join.apply(path, [root].concat(parts));
}

/**
 * 做一件事，返回退出码。root：仓库根目录（本目录往上三层）；run(tsx 的命令行, 参数)：运行一个 .ts，返回退出码；
 * say：打印一行（到标准错误，不混进 demo 的输出）。
 */
function main(args, root, run, say) {
  var tool;
  if (args.length > 0) {
    tool = Object.prototype.hasOwnProperty.call(TOOLS, args[0]) ? TOOLS[args[0]] : undefined;
    if (tool === undefined) {
      say("repo-tools.cjs 不认识 " + args[0] + "：只认 " + Object.keys(TOOLS).join("、"));
      return 2;
    }
    if (!fs.existsSync(repoFile(root, tool.file))) {
      say("（" + tool.what + "在" + tool.where + " 里，本目录不在仓库里，用不了：回到仓库里运行 npm run " + args[0] + "）");
      return 0;
    }
  }
  var check = repoFile(root, ["scripts", "check-node.cjs"]);
  if (fs.existsSync(check)) {
    var problem = require(check).nodeVersionProblem(process.versions.node);
    if (problem !== null) {
      say(problem);
      return 1;
    }
  } else {
    var engines = require("./package.json").engines.node;
    say("（本目录不在仓库里：跳过仓库的 Node 版本检查；这一步要的 Node 是 " + engines + "，当前是 " + process.version + "）");
  }
  return tool === undefined ? 0 : run(repoFile(root, tool.file), args.slice(1));
}

/** 用当前的 node 运行 tsx 的命令行（不经过 shell，Windows 上也一样），转交它的退出码与信号。 */
function runWithTsx(file, args) {
  var tsx = require.resolve("tsx/cli", { paths: [__dirname] });
  var result = childProcess.spawnSync(process.execPath, [tsx, file].concat(args), { stdio: "inherit" });
  if (result.signal) process.kill(process.pid, result.signal);
  return result.status === null ? 1 : result.status;
}

function say(line) {
  process.stderr.write(line + "\n");
}

module.exports = { main: main };

if (require.main === module) process.exitCode = main(process.argv.slice(2), path.join(__dirname, "..", "..", ".."), runWithTsx, say);
