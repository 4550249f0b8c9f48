// 只给 Wine 用的补丁（Windows 阶段通过 NODE_OPTIONS=--require 装进每一个 node.exe，子进程也继承）。
// 这里的每一条都绕开 Wine 8.0 自己的缺口，不是实验室代码的问题；真正的 Windows 不需要这个文件。
// 实验室的代码里没有任何 Wine 专用的分支：所有绕路都只在 .ci/windows/ 下面。
"use strict";
const fs = require("node:fs");
const net = require("node:net");
const path = require("node:path");
const { syncBuiltinESMExports } = require("node:module");

// ── 缺口 1：TCP_KEEPALIVE ─────────────────────────────────────────
// Windows 上 libuv 打开 keep-alive 是两次 setsockopt：SO_KEEPALIVE，再 (IPPROTO_TCP, TCP_KEEPALIVE=3, 秒数)。
// Wine 8.0 不认识后一个（WINEDEBUG=+winsock 打印 `fixme:winsock:setsockopt Unknown IPPROTO_TCP optname 0x00000003`，
// 返回 WSAENOPROTOOPT，libuv 把它报成 UNKNOWN）。连上之后再调用时 Node 不看这个返回值，什么事也没有；
// 可 fetch（undici）在 socket 还没连上时就调用 setKeepAlive，libuv 记下它、到 connect 时才设，失败就让
// 整个连接失败：`connect UNKNOWN 127.0.0.1:…`（普通的 net.connect、http.get 不调用它，不受影响）。
// 这里把「还没连上时」的调用推迟到 'connect' 之后：那时 SO_KEEPALIVE 照样设上，只有 Wine 不认的那一半被忽略。
// 最小的重现见 WINDOWS.md「Wine 的缺口」。真正的 Windows（10 起都认 TCP_KEEPALIVE）不需要。
const setKeepAlive = net.Socket.prototype.setKeepAlive;
net.Socket.prototype.setKeepAlive = function setKeepAliveAfterConnectUnderWine(...args) {
  if (this.connecting || !this._handle) this.once("connect", () => setKeepAlive.apply(this, args));
  else setKeepAlive.apply(this, args);
  return this;
};

// ── 缺口 1 的续：子进程换掉了 NODE_OPTIONS ────────────────────────
// 这个文件靠 NODE_OPTIONS=--require 装进每个 node.exe。有的测试为了让子进程不受开发者自己 shell 的影响，
// 起 CLI 时把 NODE_OPTIONS 去掉或换掉（step08、09 的 test/proxy.test.ts 去掉了它，免得混进 --use-env-proxy），
// 那个子进程里就没有上面的绕行，它的每一次 fetch 都 `connect UNKNOWN`——看起来像「环境变量代理在 Wine 里坏了」，
// 其实只是这个补丁没装上。所以起的子进程若还是 node.exe，就把 --require 这个文件补回它的 NODE_OPTIONS
// （只加这一项，测试设的别的选项原样保留）。只管 Wine 自己的缺口；真正的 Windows 不需要。
const { ChildProcess } = require("node:child_process");
const preloadOption = `--require ${__filename}`;
const spawnChild = ChildProcess.prototype.spawn;
ChildProcess.prototype.spawn = function spawnWithWinePreload(options) {
  const file = options && typeof options.file === "string" ? options.file : "";
  if (file.toLowerCase() === process.execPath.toLowerCase() && Array.isArray(options.envPairs)) {
    const index = options.envPairs.findIndex((pair) => pair.slice(0, pair.indexOf("=")).toUpperCase() === "NODE_OPTIONS");
    if (index === -1) options.envPairs.push(`NODE_OPTIONS=${preloadOption}`);
    else if (!options.envPairs[index].includes(__filename)) {
      const [name, ...value] = options.envPairs[index].split("=");
      options.envPairs[index] = `${name}=${preloadOption} ${value.join("=")}`.trimEnd();
    }
  }
  return spawnChild.call(this, options);
};

// ── 缺口 2：符号链接与 junction ───────────────────────────────────
// Wine 8.0 的 CreateSymbolicLinkW 报告成功却什么也没建，junction 则失败（ENOTSUP）。
// 测试里「能不能建链接？」的探测会被假的成功骗过，于是改成 Windows 上普通（非管理员、没开开发者模式）
// 账户真正得到的结果：EPERM。这样相关测试按它们自己打印的原因跳过，而不是测一个不存在的链接。
// 唯一的例外：测试沙箱里指向工作区包的 node_modules/<包> 链接（step08、09 的 test/helpers/cli.ts
// 用 junction 指向 labs/scripted-provider）——在真正的 Windows 上 junction 不需要权限、能建成，
// 所以这里把它换成一份复制，让那些测试照常运行；测试再 unlink 这个「链接」时，删掉的是这份复制。
function eperm(target, link) {
  const error = new Error(`EPERM: operation not permitted, symlink '${target}' -> '${link}'`);
  error.code = "EPERM";
  error.errno = -4048;
  error.syscall = "symlink";
  error.path = String(target);
  error.dest = String(link);
  return error;
}

function linksIntoNodeModules(link) {
  return path.resolve(String(link)).split(path.sep).includes("node_modules");
}

const copiedLinks = new Set();

function symlinkUnderWine(target, link) {
  if (!linksIntoNodeModules(link)) throw eperm(target, link);
  const from = path.resolve(path.dirname(String(link)), String(target));
  fs.cpSync(from, String(link), { recursive: true, filter: (src) => path.basename(src) !== "node_modules" });
  copiedLinks.add(path.resolve(String(link)));
}

// 删除链接（unlink）只删链接本身；对上面那份复制，就把整个复制删掉
function removedCopiedLink(link) {
  const absolute = path.resolve(String(link));
  if (!copiedLinks.has(absolute)) return false;
  copiedLinks.delete(absolute);
  fs.rmSync(absolute, { recursive: true, force: true, maxRetries: 5 });
  return true;
}

fs.symlinkSync = function symlinkSync(target, link) {
  symlinkUnderWine(target, link);
};
fs.symlink = function symlink(target, link, type, callback) {
  const done = typeof type === "function" ? type : callback;
  let failure = null;
  try {
    symlinkUnderWine(target, link);
  } catch (error) {
    failure = error;
  }
  process.nextTick(() => done(failure));
};
fs.promises.symlink = async function symlink(target, link) {
  symlinkUnderWine(target, link);
};
const { unlinkSync, unlink } = fs;
const unlinkPromise = fs.promises.unlink;
fs.unlinkSync = function unlinkSyncUnderWine(file) {
  if (!removedCopiedLink(file)) unlinkSync(file);
};
fs.unlink = function unlinkUnderWine(file, callback) {
  if (removedCopiedLink(file)) process.nextTick(() => callback(null));
  else unlink(file, callback);
};
fs.promises.unlink = async function unlinkUnderWine(file) {
  if (!removedCopiedLink(file)) await unlinkPromise(file);
};
// 让 `import { symlinkSync } from "node:fs"` 这样的具名导入也拿到上面的版本
syncBuiltinESMExports();
