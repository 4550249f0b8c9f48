/*
 * 只给 Wine 用：一个最小的 bcryptprimitives.dll，只导出 ProcessPrng。
 * esbuild.exe（tsx 用它转译 TypeScript）由 Go ≥ 1.22 编译，Go 的运行时启动时就从 system32 加载
 * bcryptprimitives.dll 的 ProcessPrng 取随机数；Wine 8.0 没有这个导出，esbuild.exe 于是以
 * `bcryptprimitives.dll not found` 退出。这里把它转给 Wine 已有的 SystemFunction036（RtlGenRandom）。
 * 真正的 Windows（8 及以后）自带这个 DLL，不需要它。
 * 编译：x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll process-prng.c process-prng.def -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  /* RtlGenRandom 的长度是 ULONG：大的请求分块取 */
  while (length > 0) {
    ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
