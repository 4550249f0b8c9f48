/*
 * 只给 Wine 用的 taskkill.exe（Windows 阶段用 MinGW 编译，经 WINEPATH 排在 Wine 自带的那个前面）。
 *
 * Wine 的缺口：Wine 8.0 自带的 taskkill 不认 /T（「Unknown or invalid command line option specified」，
 * 退出码 1，什么也不杀）。scripts/lib/kill-tree.ts 在 Windows 上用 `taskkill /pid N /T /F` 结束超时的 demo
 * 和它起的子进程；在 Wine 里那个 demo 于是一直活着，占着它的工作目录，删目录就 EBUSY。
 * 真正的 Windows 的 taskkill 认 /T，不需要这个文件。
 *
 * 只实现 kill-tree.ts 用到的写法：/pid N（可以有多个）、/T（连同所有后代）、/F（强制，这里总是强制）。
 * 先结束后代、再结束它自己；找不到进程时退出码 128，和 Windows 的 taskkill 一样。
 */
#include <windows.h>
#include <tlhelp32.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

#define MAX_PROCESSES 4096

static PROCESSENTRY32W list[MAX_PROCESSES];
static int marked[MAX_PROCESSES];
static int count;

static int index_of(DWORD pid) {
  for (int i = 0; i < count; i++)
    if (list[i].th32ProcessID == pid) return i;
  return -1;
}

/* 把 root 的所有后代标上（按 th32ParentProcessID 一层层往下找，直到不再有新的） */
static void mark_descendants(void) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = 0; i < count; i++) {
      if (marked[i]) continue;
      int parent = index_of(list[i].th32ParentProcessID);
      if (parent >= 0 && marked[parent] && list[i].th32ProcessID != list[parent].th32ProcessID) {
        marked[i] = marked[parent] + 1; /* 深度：先杀深的 */
        changed = 1;
      }
    }
  }
}

int wmain(int argc, wchar_t **argv) {
  DWORD pids[64];
  int npids = 0, tree = 0;
  for (int i = 1; i < argc; i++) {
    if (!_wcsicmp(argv[i], L"/pid") && i + 1 < argc && npids < 64) pids[npids++] = wcstoul(argv[++i], NULL, 10);
    else if (!_wcsicmp(argv[i], L"/t")) tree = 1;
    else if (!_wcsicmp(argv[i], L"/f")) continue;
    else {
      fprintf(stderr, "taskkill-tree: unsupported argument %ls\n", argv[i]);
      return 1;
    }
  }
  if (npids == 0) {
    fprintf(stderr, "taskkill-tree: usage: taskkill /pid N [/T] [/F]\n");
    return 1;
  }

  HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snapshot == INVALID_HANDLE_VALUE) return 1;
  list[0].dwSize = sizeof(list[0]);
  for (BOOL more = Process32FirstW(snapshot, &list[0]); more && count < MAX_PROCESSES;) {
    count++;
    list[count].dwSize = sizeof(list[count]);
    more = count < MAX_PROCESSES && Process32NextW(snapshot, &list[count]);
  }
  CloseHandle(snapshot);

  int status = 0;
  for (int p = 0; p < npids; p++) {
    int i = index_of(pids[p]);
    if (i < 0) {
      printf("ERROR: The process \"%lu\" not found.\n", pids[p]);
      status = 128;
    } else {
      marked[i] = 1;
    }
  }
  if (tree) mark_descendants();

  int deepest = 0;
  for (int i = 0; i < count; i++)
    if (marked[i] > deepest) deepest = marked[i];
  for (int depth = deepest; depth >= 1; depth--) {
    for (int i = 0; i < count; i++) {
      if (marked[i] != depth) continue;
      HANDLE process = OpenProcess(PROCESS_TERMINATE, FALSE, list[i].th32ProcessID);
      if (process && TerminateProcess(process, 1)) {
        printf("SUCCESS: The process with PID %lu (child process of PID %lu) has been terminated.\n", list[i].th32ProcessID,
               list[i].th32ParentProcessID);
      } else {
        printf("ERROR: The process with PID %lu could not be terminated.\n", list[i].th32ProcessID);
        if (status == 0) status = 1;
      }
      if (process) CloseHandle(process);
    }
  }
  return status;
}
