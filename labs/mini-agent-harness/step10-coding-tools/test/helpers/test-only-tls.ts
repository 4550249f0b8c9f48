/**
 * 仅供测试：一张给 127.0.0.1 / localhost 的自签名证书和它的私钥（openssl 生成，有效期 100 年）。
 * 它不保护任何东西：私钥就公开在仓库里，只用来在测试里起一个本机的 HTTPS 服务器，
 * 看 fetch 遇到「不受信任的证书」「http:// 连到 HTTPS 端口」时我们怎么说。不要在测试以外使用它。
 */
import type http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";

export const TEST_ONLY_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg7Q76La1O/US2eGJ8
+H5tq3KxFAwfpG2UpWDks9+32tKhRANCAASEXjgBIcGbxWNZdzzZ/HQ//E1Xirla
fwK/bTFLpj4TabFVK/V+jgJqo/52W/dxSy1/hDhzFxLdzPVtDEhG22gL
-----END PRIVATE KEY-----
`;

export const TEST_ONLY_CERT = `-----BEGIN CERTIFICATE-----
MIIBwjCCAWegAwIBAgIUTRVUBKs3qDele2aPIW0WowKpbZQwCgYIKoZIzj0EAwIw
JzElMCMGA1UEAwwcbWluaS1hZ2VudC1oYXJuZXNzIHRlc3Qgb25seTAgFw0yNjEy
MDMwODMyMTVaGA8yMTI2MTEwOTA4MzIxNVowJzElMCMGA1UEAwwcbWluaS1hZ2Vu
dC1oYXJuZXNzIHRlc3Qgb25seTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABIRe
OAEhwZvFY1l3PNn8dD/8TVeKuVp/Ar9tMUumPhNpsVUr9X6OAmqj/nZb93FLLX+E
OHMXEt3M9W0MSEbbaAujbzBtMB0GA1UdDgQWBBRpmGNxQuHi+Pfey6wBM9SULSXS
5zAfBgNVHSMEGDAWgBRpmGNxQuHi+Pfey6wBM9SULSXS5zAPBgNVHRMBAf8EBTAD
AQH/MBoGA1UdEQQTMBGHBH8AAAGCCWxvY2FsaG9zdDAKBggqhkjOPQQDAgNJADBG
AiEA7JfnN5yFmXqJXj+20DnPQ6s5VV79ebSis0TCpwHyyq0CIQChtuF+ZXf8Vdmz
JqIxqNUwa/jUhkOPtOPn4MA10nIPOQ==
-----END CERTIFICATE-----
`;

/** 起一个本机 HTTPS 服务器（系统挑端口），用上面的自签名证书；监听不了（比如机器没有 ::1）就带着错误码失败。 */
export async function startTlsServer(handler: http.RequestListener, host = "127.0.0.1"): Promise<{ server: https.Server; port: number; close(): Promise<void> }> {
  const server = https.createServer({ key: TEST_ONLY_KEY, cert: TEST_ONLY_CERT }, handler);
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, host, resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
