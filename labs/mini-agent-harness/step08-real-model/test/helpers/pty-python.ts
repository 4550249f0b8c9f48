/**
 * 伪终端测试要的 python3（带 pty 模块）：pty*.test.ts 共用这一次探测。
 * 记下解释器的真实路径：python3 可能是 pyenv 之类的 shell 垫片，每次经过它都要多起一串 bash 进程。
 * 找到 python3 就不再试 python；同一个测试进程先后跑的几个伪终端测试文件（各步骤的副本）只探测一次，结果记在 globalThis 上。
 */
import { spawnSync } from "node:child_process";

const probed = globalThis as { harnessPtyPython?: string | null };
probed.harnessPtyPython ??= process.platform === "win32" ? null : probePython();

/** 解释器的路径；没有（或在 Windows 上）时是 undefined。 */
export const python = probed.harnessPtyPython ?? undefined;

/** CI=true 时缺了 python3 不许悄悄跳过，而是失败并说出缺了什么（Windows 除外：它本来就没有 POSIX 伪终端，见 .ci/skip-allow-list.txt） */
export const mustRun = process.env.CI === "true" && process.platform !== "win32";

function probePython(): string | null {
  for (const cmd of ["python3", "python"]) {
    const probe = spawnSync(cmd, ["-c", "import pty, sys; print(sys.executable)"], { encoding: "utf8" });
    if (probe.status === 0 && probe.stdout.trim()) return probe.stdout.trim();
  }
  return null;
}
