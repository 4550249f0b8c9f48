#!/usr/bin/env bash
# CI 的书站一段（issue 23）：从 book/ 自己的锁文件安装，构建书站，再用系统的 Chromium 跑浏览器测试
# （爬遍站内链接、每张图、每一处引用、十个中文查询、截图）。测试最后一行是「N passed, M failed」。
# 用法：bash .ci/book.sh                  安装、构建、浏览器测试
#       bash .ci/book.sh install build …  只做其中几项（install、build、test）：.ci/run 在 npm ci 之后就在后台安装
#                                         （Windows 阶段的书站构建也要用），构建与浏览器测试放在后面，各是一个阶段
# CI=true 时找不到 Chromium 直接失败。
set -euo pipefail
cd "$(dirname "$0")/.."
parts=" ${*:-install build test} "
for p in $parts; do
  [[ $p == install || $p == build || $p == test ]] || { echo "用法：bash .ci/book.sh [install] [build] [test]" >&2; exit 2; }
done
want() { [[ $parts == *" $1 "* ]]; }

if want test; then
  # 提示框的标签是 emoji（📘 ⚠️ 🌱 🛠）：没有彩色 emoji 字体时截图里是方块。Debian 的 fonts-noto-color-emoji 补上它
  # （.ci/run 一开始就把它和别的包一起装了；单独运行这个脚本时在这里装）
  if ! fc-list 2>/dev/null | grep -i "Noto Color Emoji" >/dev/null; then # 不用 grep -q：pipefail 下 fc-list 的 SIGPIPE 会让它算「没有」
    if [[ "$(uname -s)" == "Linux" && $EUID -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
      export DEBIAN_FRONTEND=noninteractive
      apt-get install -y --no-install-recommends fonts-noto-color-emoji >/dev/null 2>&1 ||
        { apt-get update >/dev/null && apt-get install -y --no-install-recommends fonts-noto-color-emoji >/dev/null; }
      echo "-- 装上了 fonts-noto-color-emoji（截图里的提示框标签）"
    else
      echo "注意：没有彩色 emoji 字体（Debian/Ubuntu：apt-get install fonts-noto-color-emoji），截图里提示框的标签会是方块" >&2
    fi
  fi
fi

if want install; then
  # 与学习者第一次 npm run book 同一条路：npm ci 锁文件里的包，Mermaid 与 Pi 的包只取要用的文件（scripts/lib/book-install.ts）
  t0=$SECONDS
  rm -rf book/node_modules
  node_modules/.bin/tsx scripts/book.ts install
  size_mb=$(du -sm book/node_modules | cut -f1)
  echo "-- book/ 依赖安装：$((SECONDS - t0))s，${size_mb} MB"
  # DESIGN §13：book/node_modules ≤ 250 MB
  ((size_mb <= 250)) || { echo "book/node_modules 有 ${size_mb} MB，超过 250 MB" >&2; exit 1; }
fi

if want build; then
  # 构建只有这一次：浏览器测试用它的结果（--no-build）。另记下 CPU 时间与负载：机器忙时墙钟时间不可比
  uptime
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -f "-- npm run book:build：%e s 墙钟，CPU %U s 用户态 + %S s 内核态" npm run --silent book:build
  else
    npm run --silent book:build
  fi
fi

if want test; then
  # 浏览器测试用刚才构建好的 dist/（--no-build），打印 N passed, M failed
  npm run --silent book:test -- --no-build
fi
