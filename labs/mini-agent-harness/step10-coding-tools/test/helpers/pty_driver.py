"""在真实的伪终端里驱动 CLI，按剧本发送按键，打印一份 JSON 报告。

用法：python3 pty_driver.py <剧本 JSON> <命令> [参数...]
剧本是一串步骤：{"expect": "文本"} 等待输出里（上一次匹配之后）出现这段文本；
{"send": "文本"} 发送字节（"\\u0003" 就是 Ctrl+C 的真实字节 0x03）；{"sleep": 秒}；
{"file": "路径"} 等这个文件出现且不空（被驱动的程序在别处记下的事，比如一条命令写下自己的 pid）。
之所以用伪终端而不是管道：readline 只有在终端里才会拦截 Ctrl+C，
并在自己身上触发 SIGINT——那正是 main.ts 里 rl.on("SIGINT") 要处理的路径。
"""

import json
import os
import pty
import re
import select
import sys
import time

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\r")


def main() -> None:
    script = json.loads(sys.argv[1])
    command = sys.argv[2:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    output = b""
    cursor = 0
    failure = None

    def read_some(timeout: float) -> None:
        nonlocal output
        ready, _, _ = select.select([fd], [], [], timeout)
        if ready:
            try:
                output += os.read(fd, 4096)
            except OSError:
                pass

    for step in script:
        if "send" in step:
            os.write(fd, step["send"].encode("utf-8"))
        elif "sleep" in step:
            deadline = time.time() + step["sleep"]
            while time.time() < deadline:
                read_some(deadline - time.time())
        elif "file" in step:
            deadline = time.time() + step.get("timeout", 60)  # 只防真卡住
            while not (os.path.exists(step["file"]) and os.path.getsize(step["file"]) > 0):
                if time.time() > deadline:
                    failure = f"等不到文件 {step['file']!r}"
                    break
                read_some(0.05)
            if failure:
                break
        elif "expect" in step:
            wanted = step["expect"]
            deadline = time.time() + step.get("timeout", 60)  # 只防真卡住：机器很忙时也不误报
            while True:
                text = ANSI.sub("", output.decode("utf-8", "replace"))
                found = text.find(wanted, cursor)
                if found >= 0:
                    cursor = found + len(wanted)
                    break
                if time.time() > deadline:
                    failure = f"等不到 {wanted!r}"
                    break
                read_some(0.05)
            if failure:
                break

    # 等进程退出（最多 10 秒），把剩下的输出读完。
    exit_code = None
    deadline = time.time() + 10
    while time.time() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            exit_code = os.waitstatus_to_exitcode(status)
            break
        read_some(0.05)
    if exit_code is None:
        os.kill(pid, 9)
    while True:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    transcript = ANSI.sub("", output.decode("utf-8", "replace"))
    # raw：进程真正写出的字节（去掉控制序列之前），用来检查哑终端上一个 ESC 也没有
    raw = output.decode("utf-8", "replace")
    print(json.dumps({"failure": failure, "exitCode": exit_code, "transcript": transcript, "raw": raw}, ensure_ascii=False))


main()
