/**
 * TLS 的失败不是「网络抖了一下」：证书不受信任、http 与 https 写反了，重连一百次也一样。
 * 这里把它们认出来，说成一句告诉用户怎么改的话，代替 OpenSSL 的原文或一句「other side closed」。
 */
import net from "node:net";
import tls from "node:tls";

/** 自签名、公司网络的中间人证书、缺了中间证书：都是「这台机器不认识签发它的 CA」。 */
const UNTRUSTED = /^(?:DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_UNTRUSTED)$/;
/** 别的证书问题：过期、没到生效期、不是签给这个主机的…… */
const BAD_CERT = /CERT|ERR_TLS_CERT_ALTNAME_INVALID/;
/** https:// 连到了说普通 HTTP 的端口：OpenSSL 把对方的「HTTP/1.1 400」当成 TLS 记录去读。 */
const PLAIN_PORT = /^ERR_SSL_(?:WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL)$/;

/** 连接失败若是 TLS 的问题，返回一句说明（以「TLS 错误：」开头，重试层认得它）；否则 undefined。 */
export function describeTlsProblem(error: unknown, reason: string): string | undefined {
  if (error instanceof WrongSchemeError) return error.message;
  const code = codeOf(error);
  if (code === undefined) return undefined;
  if (UNTRUSTED.test(code)) {
    return `TLS 错误：服务器的证书不受信任（${reason}）。如果这是自签名或公司网络的证书：把签发它的 CA 证书存成 PEM 文件，再用 NODE_EXTRA_CA_CERTS=<文件路径> npm start 启动`;
  }
  if (PLAIN_PORT.test(code)) return "TLS 错误：这个端口说的是普通 HTTP，不是 HTTPS：请把 HARNESS_BASE_URL 里的 https:// 改成 http://";
  if (BAD_CERT.test(code)) return `TLS 错误：服务器的证书不能用（${reason}）`;
  return undefined;
}

/**
 * fetch 外面套一层：http:// 的连接还没等到回答就被对方关掉时，试一次 TLS 握手；
 * 握手成功，说明那个端口说的是 HTTPS，换成一个说明写反了的错误（错误码 ERR_ 开头：重试层不重试它）。
 */
export function diagnoseWrongScheme(doFetch: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      return await doFetch(input, init);
    } catch (error) {
      const url = typeof input === "string" && URL.canParse(input) ? new URL(input) : undefined;
      if (url?.protocol === "http:" && closedBeforeAnswer(error) && !init?.signal?.aborted && (await speaksTls(url))) throw new WrongSchemeError();
      throw error;
    }
  };
}

class WrongSchemeError extends Error {
  readonly code = "ERR_HTTP_TO_HTTPS_PORT";
  constructor() {
    super("TLS 错误：这个端口说的是 HTTPS：请把 HARNESS_BASE_URL 里的 http:// 改成 https://");
  }
}

function codeOf(error: unknown): string | undefined {
  try {
    const cause: unknown = error instanceof Error ? error.cause : undefined;
    const code: unknown = (cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown } | undefined)?.code;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}

function closedBeforeAnswer(error: unknown): boolean {
  const code = codeOf(error);
  return code === "UND_ERR_SOCKET" || code === "ECONNRESET";
}

/** 那个端口能不能完成一次 TLS 握手（不验证证书：只想知道它说不说 TLS）。最多等 3 秒。 */
function speaksTls(url: URL): Promise<boolean> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve) => {
    const socket = tls.connect({ host, port: Number(url.port || 80), servername: net.isIP(host) ? undefined : host, rejectUnauthorized: false });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(3000, () => done(false));
    socket.once("secureConnect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}
