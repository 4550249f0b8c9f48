#!/usr/bin/env python3
"""在真实伪终端里驱动 step07 的交互 CLI，采集两次 Ctrl+C 的终端记录。

用法（仓库根目录已 npm ci）：
    python3 research/cli-captures/capture-step07-ctrlc.py [--step-dir DIR] [--out FILE]

做法：
- 用 pty.fork() 开一个真正的伪终端（80×24），子进程以 step 目录为 cwd 运行
  node <仓库根>/node_modules/tsx/dist/cli.mjs src/main.ts。
- 等到提示符「你> 」，送入「说个长的」加回车（\\r，终端里回车键的真实字节）；
- 看到第一段「助手> 」输出后再等约 500 ms，送入一个字节 0x03（终端里 Ctrl+C 的真实字节）；
- 等到「[已取消]」和新的「你> 」，再等 1 秒，在空闲提示符上再送一次 0x03；
- 期望看到「再见。」，且进程退出码为 0。
- 去掉 ANSI 控制序列与回车符、每行行尾空白，加上说明采集方式的文件头，写入 step07-ctrlc.txt。

只依赖 Python 3 标准库（pty 模块只在类 Unix 系统上有）。
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import shutil
import signal
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RESEARCH_DIR = os.path.dirname(HERE)
REPO_ROOT = os.path.dirname(RESEARCH_DIR)
DEFAULT_STEP_DIR = os.path.join(REPO_ROOT, "labs", "mini-agent-harness", "step07-abort-extensions")
DEFAULT_OUT = os.path.join(HERE, "step07-ctrlc.txt")
TSX_CLI = os.path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs")

PROMPT = "你> "
ASSISTANT = "助手> "
CANCELLED = "[已取消]"
GOODBYE = "再见。"
USER_INPUT = "说个长的"
TIMEOUT_S = 30.0

ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI：光标移动、清行、颜色……
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC：窗口标题等
    r"|\x1b[@-Z\\-_]"  # 其余两字节转义
)


def fail(message: str) -> "NoReturn":  # type: ignore[name-defined]
    print(f"capture-step07-ctrlc：{message}", file=sys.stderr)
    sys.exit(1)


SESSION_FILE_RE = re.compile(r"\.sessions/[^\s/]+\.jsonl")


def normalize(text: str) -> str:
    """把每次都不同的会话文件名（含时间戳与进程号）换成占位符。"""
    return SESSION_FILE_RE.sub(".sessions/<会话文件>.jsonl", text)


def list_sessions(step_dir: str) -> set[str]:
    folder = os.path.join(step_dir, ".sessions")
    return set(os.listdir(folder)) if os.path.isdir(folder) else set()


def clean(text: str) -> str:
    """去掉 ANSI 序列、回车符、其他控制字符与行尾空白。"""
    text = ANSI_RE.sub("", text).replace("\r", "")
    text = "".join(ch for ch in text if ch == "\n" or ch == "\t" or ord(ch) >= 0x20)
    return "\n".join(line.rstrip() for line in text.split("\n"))


class Session:
    """伪终端另一端的读取器：累积输出，按文本等待。"""

    def __init__(self, fd: int, pid: int) -> None:
        self.fd = fd
        self.pid = pid
        self.raw = bytearray()
        self.eof = False

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")

    def pump(self, seconds: float) -> None:
        """读 seconds 秒（或直到 EOF）。"""
        deadline = time.monotonic() + seconds
        while not self.eof:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:  # Linux 上子进程退出后读主端会得到 EIO
                chunk = b""
            if not chunk:
                self.eof = True
                return
            self.raw.extend(chunk)

    def wait_for(self, needle: str, start: int = 0, what: str = "") -> int:
        """等到清洗后的输出在 start 之后出现 needle；返回它结束处的位置。"""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            cleaned = clean(self.text)
            idx = cleaned.find(needle.rstrip(), start)
            if idx >= 0:
                return idx + len(needle.rstrip())
            if self.eof or time.monotonic() > deadline:
                reason = "进程已经结束" if self.eof else f"等了 {TIMEOUT_S:.0f} 秒"
                fail(
                    f"{reason}，仍没看到「{needle.strip()}」{what}。到目前为止的输出：\n"
                    + cleaned
                )
            self.pump(0.1)

    def send(self, data: bytes) -> None:
        os.write(self.fd, data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step-dir", default=DEFAULT_STEP_DIR, help="step07 目录（默认仓库里的那个）")
    parser.add_argument("--out", default=DEFAULT_OUT, help="输出文件（默认 research/cli-captures/step07-ctrlc.txt）")
    args = parser.parse_args()

    step_dir = os.path.abspath(args.step_dir)
    main_ts = os.path.join(step_dir, "src", "main.ts")
    if not os.path.isdir(step_dir):
        fail(f"step07 还不存在：找不到目录 {step_dir}。等 labs/mini-agent-harness/step07-abort-extensions 写好后再运行。")
    if not os.path.isfile(main_ts):
        fail(f"step07 还不完整：找不到 {main_ts}。")
    if not os.path.isfile(TSX_CLI):
        fail(f"找不到 {TSX_CLI}。先在仓库根目录运行 npm ci。")
    node = shutil.which("node")
    if node is None:
        fail("PATH 里找不到 node。")

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"TERM": "xterm-256color", "LANG": "C.UTF-8", "FORCE_COLOR": "0"})

    sessions_before = list_sessions(step_dir)
    pid, fd = pty.fork()
    if pid == 0:  # 子进程：在伪终端里运行 CLI
        try:
            os.chdir(step_dir)
            os.execve(node, [node, TSX_CLI, "src/main.ts"], env)
        finally:
            os._exit(127)

    try:
        import fcntl
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    except (ImportError, OSError):
        pass

    s = Session(fd, pid)
    exit_code: int | None = None
    try:
        at = s.wait_for(PROMPT, what="（启动后的第一个提示符）")
        s.send(f"{USER_INPUT}\r".encode("utf-8"))
        at = s.wait_for(ASSISTANT, at, "（模型开始回复）")
        s.pump(0.5)
        s.send(b"\x03")
        at = s.wait_for(CANCELLED, at, "（第一次 Ctrl+C 应该取消这一轮）")
        at = s.wait_for(PROMPT, at, "（取消后应该回到提示符）")
        s.pump(1.0)
        s.send(b"\x03")
        s.wait_for(GOODBYE, at, "（空闲时的 Ctrl+C 应该退出）")
        deadline = time.monotonic() + TIMEOUT_S
        while exit_code is None and time.monotonic() < deadline:
            s.pump(0.1)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                exit_code = os.waitstatus_to_exitcode(status)
        s.pump(0.2)
    finally:
        if exit_code is None:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        os.close(fd)
        # 采集会让 CLI 新建一个会话文件：删掉这次新建的，不在 step 目录里留下痕迹。
        for name in list_sessions(step_dir) - sessions_before:
            os.remove(os.path.join(step_dir, ".sessions", name))

    if exit_code is None:
        fail("打印「再见。」之后进程没有退出。输出：\n" + clean(s.text))
    if exit_code != 0:
        fail(f"进程退出码是 {exit_code}，应为 0。输出：\n" + clean(s.text))

    transcript = normalize(clean(s.text)).strip("\n")
    header = "\n".join(
        [
            "# step07 交互模式下的两次 Ctrl+C：真实伪终端采集，由 research/cli-captures/capture-step07-ctrlc.py 生成，请勿手改。",
            "# 方法：Python pty.fork() 开一个 80×24 的伪终端，cwd = labs/mini-agent-harness/step07-abort-extensions，",
            "#       运行 node <仓库根>/node_modules/tsx/dist/cli.mjs src/main.ts。",
            f"#       等到「{PROMPT.strip()}」后送入「{USER_INPUT}」和回车（\\r）；看到「{ASSISTANT.strip()}」约 500 ms 后送入字节 0x03（Ctrl+C）；",
            f"#       等到「{CANCELLED}」和新的「{PROMPT.strip()}」，1 秒后在空闲提示符上再送一次 0x03；期望「{GOODBYE}」且退出码 0。",
            f"# 结果：进程退出码 {exit_code}。",
            "# 清洗：去掉 ANSI 控制序列、回车符与行尾空白；回显的输入是终端自己的回显。",
            "# 占位符：会话文件名含时间戳与进程号，写成 .sessions/<会话文件>.jsonl；采集新建的会话文件随后被删除。",
            "# 会变的内容：「助手> 」后面停在哪个字取决于机器速度，不是固定值；其余各行每次都应相同。",
            "",
        ]
    )
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write(header + "\n" + transcript + "\n")
    print(f"写入 {os.path.relpath(args.out)}（退出码 {exit_code}）")


if __name__ == "__main__":
    main()
