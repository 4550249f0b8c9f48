/**
 * 同一时刻只许一个进程往一个会话文件里追加：两个进程会各自从同一个编号往下排，写出重复的 id，两条对话的行交错在一起。
 * 锁是旁边的 <文件>.lock，里面写着持有者的进程号，用独占模式（wx）创建：同时抢，操作系统保证只有一个成功。
 * 进程崩溃（kill -9、断电）留下的锁里的进程号已经不在了，是陈旧的锁，删掉重新抢（重启后进程号可能被复用，那时删掉锁文件即可）。
 * 同一个进程可以多次打开同一个文件（测试与演示里就这么做），锁只防别的进程。
 */

import fs from "node:fs";

import { errorCode, tryOr } from "./shown.js";

const held = new Set<string>();

/** 进程退出时删掉本进程持有的全部锁文件（正常退出、process.exit、Ctrl+C 退出都会走到这里）。 */
function releaseAll(): void {
  // 删不掉也不影响退出：下一个进程会按陈旧的锁处理
  for (const lock of held) tryOr(undefined, () => fs.rmSync(lock, { force: true }));
  held.clear();
}

/** 这个进程号还活着吗。EPERM 表示进程存在、只是不属于我们。 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}

/** 锁文件里记着的进程号；读不出来（空文件、乱码、已被删掉）返回 undefined。 */
function ownerOf(lock: string): number | undefined {
  const pid = Number(tryOr("", () => fs.readFileSync(lock, "utf8"))); // Number 自己忽略首尾的空白与换行
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** 为会话文件 file 加锁：别的活着的进程持有它时抛出一句说明（name 是报错时用的文件名），陈旧的锁被接管。 */
export function lockSession(file: string, name: string): void {
  const lock = `${file}.lock`;
  if (held.has(lock)) return;
  // 最多抢两次：第一次遇到陈旧的锁，删掉后再抢一次；再失败就说明真的有人在用
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: "wx" });
      if (!process.listeners("exit").includes(releaseAll)) process.on("exit", releaseAll);
      held.add(lock);
      return;
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
    const owner = ownerOf(lock);
    if (owner === process.pid) {
      held.add(lock);
      return;
    }
    if (owner !== undefined && isAlive(owner)) break;
    fs.rmSync(lock, { force: true }); // 陈旧的锁：持有者已经退出或崩溃
  }
  const owner = ownerOf(lock) ?? "未知";
  throw new Error(`会话文件 ${name} 正被另一个进程（pid ${owner}）使用；同一个会话同时只能有一个进程写入。如果确定没有别的进程，删掉 ${name}.lock 再试`);
}

/** 释放本进程对 file 的锁（测试用；正常运行时由进程退出统一释放）。 */
export function unlockSession(file: string): void {
  const lock = `${file}.lock`;
  if (held.delete(lock)) fs.rmSync(lock, { force: true });
}

/** 做 work；它抛出时先放开本进程对 file 的锁再抛出：打开失败的文件不能一直锁着。 */
export function unlockOnError<T>(file: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    unlockSession(file);
    throw error;
  }
}
