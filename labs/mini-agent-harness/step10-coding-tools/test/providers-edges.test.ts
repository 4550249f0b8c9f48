// providers/ 里几个小模块（url、proxy、redirect、reply、transform-messages）的边角：变异测试（npm run mutation）找出来的、别的测试没有测到的行为。
// 全部在进程内：直接调函数、直接构造 Response，不起服务器、不起子进程。
import { describe, expect, it } from "vitest";

import { fetchSameOrigin, keepLoopbackDirect, nodeHasProxySwitch, proxyHint, redirectTarget } from "../src/providers/guards/network.js";
import { ReplyBuilder } from "../src/providers/reply.js";
import { toolsToSend } from "../src/providers/transform-messages.js";
import { joinUrl, querySecrets, redactSecrets, redactUrlQuery, safeUrl } from "../src/providers/guards/settings.js";

describe("url：拼地址与抹秘密", () => {
  it("joinUrl：末尾多写的斜杠（几个都算）去掉；解析不了的地址照旧拼接", () => {
    expect(joinUrl("http://h/v1//", "/chat")).toBe("http://h/v1/chat");
    expect(joinUrl("http://h/v1/?api-version=1", "/chat")).toBe("http://h/v1/chat?api-version=1");
    expect(joinUrl("不是地址//", "/chat")).toBe("不是地址/chat");
  });

  it("safeUrl：解析不了的地址不原样打印", () => {
    expect(safeUrl("http://[坏")).toBe("（地址无法解析）");
  });

  it("querySecrets：只取名字像秘密、值不为空的参数；解析不了的地址没有秘密", () => {
    expect(querySecrets("http://h/v1?key=abc&api-version=2024&token=&sig=xyz")).toEqual(["abc", "xyz"]);
    expect(querySecrets("不是地址?key=abc")).toEqual([]);
  });

  it("redactUrlQuery：名字整个匹配才算秘密；api-key、access_token 的几种写法都认", () => {
    expect(redactUrlQuery("?mykey=1&keyring=2&apikey=3&api_key=4&accesstoken=5&access-token=6&code=7")).toBe(
      "?mykey=1&keyring=2&apikey=***&api_key=***&accesstoken=***&access-token=***&code=***",
    );
  });

  it("redactSecrets：恰好 4 个字符的密钥也抹；URL 编码（含一位数的与非 ASCII 的）、\\/、HTML 实体都认得", () => {
    expect(redactSecrets("key abcd", ["abcd"])).toBe("key ***");
    expect(redactSecrets("k=%61bcd", ["abcd"])).toBe("k=***");
    expect(redactSecrets("k=ab%09cd", ["ab\tcd"])).toBe("k=***");
    expect(redactSecrets(`k=${encodeURIComponent("密钥密钥")}`, ["密钥密钥"])).toBe("k=***");
    expect(redactSecrets("k=ab%C2%80cd", ["ab\u0080cd"])).toBe("k=***");
    expect(redactSecrets("k=ab\\/cd", ["ab/cd"])).toBe("k=***");
    expect(redactSecrets("k=a&amp;b&lt;c&gt;d&quot;e&apos;f", [`a&b<c>d"e'f`])).toBe("k=***");
  });

  it("redactSecrets：只认这些写法，别的字符不能替换、也不能省掉", () => {
    expect(redactSecrets("k=\\/bcd", ["abcd"])).toBe("k=\\/bcd");
    expect(redactSecrets("k=abcd", ["ab/cd"])).toBe("k=abcd");
  });
});

describe("proxy：提示与直连", () => {
  const NO_PROXY_VARS = { HTTPS_PROXY: undefined, https_proxy: undefined, HTTP_PROXY: undefined, http_proxy: undefined };

  /** 假装是另一个版本的 Node（nodeHasProxySwitch 默认读 process.versions.node），测完换回。 */
  function asNode<T>(version: string, run: () => T): T {
    const original = Object.getOwnPropertyDescriptor(process.versions, "node");
    Object.defineProperty(process.versions, "node", { ...original, value: version });
    try {
      return run();
    } finally {
      if (original) Object.defineProperty(process.versions, "node", original);
    }
  }

  it("nodeHasProxySwitch：22.21 起、24.5 起，以及 25 以后", () => {
    const table = { "20.19.0": false, "22.20.9": false, "22.21.0": true, "23.9.0": false, "23.21.0": false, "24.4.9": false, "24.5.0": true, "25.0.0": true, "26.1.0": true };
    for (const [version, has] of Object.entries(table)) expect(nodeHasProxySwitch(version), version).toBe(has);
  });

  it("四个代理变量都点名；没设时什么也不说", () => {
    for (const name of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"]) {
      expect(proxyHint({ ...NO_PROXY_VARS, [name]: "http://proxy:1" }, [])).toContain(`设置了 ${name}，但 Node 的 fetch 没有用它`);
    }
    expect(proxyHint({ ...NO_PROXY_VARS }, [])).toBe("");
  });

  it("有开关的 Node：三种打开方式都不再提示，没打开（或写成 0）时教怎么打开", () => {
    asNode("24.5.0", () => {
      const env = { ...NO_PROXY_VARS, HTTPS_PROXY: "http://proxy:1" };
      expect(proxyHint({ ...env, NODE_USE_ENV_PROXY: "1" }, [])).toBe("");
      expect(proxyHint(env, ["--use-env-proxy"])).toBe("");
      expect(proxyHint({ ...env, NODE_OPTIONS: "--max-old-space-size=100 --use-env-proxy" }, [])).toBe("");
      const hint = "。设置了 HTTPS_PROXY，但 Node 的 fetch 没有用它：要走代理，请这样启动：NODE_USE_ENV_PROXY=1 npm start（或 node --use-env-proxy）";
      expect(proxyHint({ ...env, NODE_USE_ENV_PROXY: "0" }, ["--inspect"])).toBe(hint);
      expect(proxyHint(env, [])).toBe(hint);
    });
  });

  it("没有开关的 Node：打开了也没用，提示换 Node", () => {
    asNode("20.19.0", () => {
      expect(proxyHint({ ...NO_PROXY_VARS, HTTP_PROXY: "http://proxy:1", NODE_USE_ENV_PROXY: "1" }, [])).toContain("没有这个开关，请换 Node 22.21 / 24.5 或更新");
    });
  });

  it("keepLoopbackDirect：NO_PROXY 里已有的主机（前后带空格也算）不再加", () => {
    const env: NodeJS.ProcessEnv = { no_proxy: " 127.0.0.1 ,example.com" };
    keepLoopbackDirect("http://127.0.0.1:8080/v1", env);
    expect(env.no_proxy).toBe(" 127.0.0.1 ,example.com");
    keepLoopbackDirect("不是地址", env);
    expect(env).toEqual({ no_proxy: " 127.0.0.1 ,example.com" });
  });
});

describe("redirect：自己处理重定向", () => {
  it("redirectTarget：不是重定向状态、或没有 Location，都不算", () => {
    expect(redirectTarget(new Response(null, { status: 200, headers: { location: "/x" } }), "http://h/")).toBeUndefined();
    expect(redirectTarget(new Response(null, { status: 302 }), "http://h/")).toBeUndefined();
    expect(redirectTarget(new Response(null, { status: 302, headers: { location: "http://[bad" } }), "http://h/")).toBeUndefined();
    expect(redirectTarget(new Response(null, { status: 308, headers: { location: "/x" } }), "http://h/a")).toBe("http://h/x");
  });

  it("fetchSameOrigin：没有正文的同源 3xx 照跟，同一个请求重发到新地址", async () => {
    const seen: string[] = [];
    const fake: typeof fetch = async (input, init) => {
      seen.push(`${String(input)} ${init?.method} ${init?.redirect}`);
      return seen.length === 1 ? new Response(null, { status: 307, headers: { location: "/v2" } }) : new Response("ok");
    };
    const response = await fetchSameOrigin(fake, "http://h/v1", { method: "POST" });
    expect(await response.text()).toBe("ok");
    expect(seen).toEqual(["http://h/v1 POST manual", "http://h/v2 POST manual"]);
  });
});

describe("transform-messages：要发的工具", () => {
  it("没有工具：什么也不发", () => {
    expect(toolsToSend()).toEqual([]);
  });
});

describe("ReplyBuilder 的边角", () => {
  it("空的文本增量不造文本块，也不交出增量", () => {
    const reply = new ReplyBuilder([]);
    reply.text("");
    expect(reply.takeDeltas()).toEqual([]);
    expect(reply.finish("stop").content).toEqual([]);
  });

  it("同一个键、没有新 id 的碎片接在同一个调用上", () => {
    const reply = new ReplyBuilder([]);
    reply.tool("#0", "a").name = "calc";
    reply.tool("#0").json += '{"expression":';
    reply.tool("#0", "a").json += '"1"}';
    expect(reply.finish("toolUse").content).toEqual([{ type: "toolCall", id: "a", name: "calc", arguments: { expression: "1" } }]);
  });

  it("出错或取消时，还没收到参数的调用丢掉；正常结束时空参数（只有空白也算）当作 {}", () => {
    for (const reason of ["error", "aborted"] as const) {
      const reply = new ReplyBuilder([]);
      reply.text("半句");
      reply.tool("#0", "a").name = "calc";
      expect(reply.finish(reason).content).toEqual([{ type: "text", text: "半句" }]);
    }
    const reply = new ReplyBuilder([]);
    const draft = reply.tool("#0", "a");
    draft.name = "now";
    draft.json = "  ";
    expect(reply.finish("toolUse").content).toEqual([{ type: "toolCall", id: "a", name: "now", arguments: {} }]);
  });

  it("文字加工具调用却报 stop：改成 toolUse", () => {
    const reply = new ReplyBuilder([]);
    reply.text("我来算");
    reply.tool("#0", "a").name = "calc";
    expect(reply.finish("stop").stopReason).toBe("toolUse");
  });

  it("参数是 JSON 却不是对象（数组、null、数字）或不是 JSON：按错误处理，说明原因", () => {
    for (const json of ["[1]", "null", "5"]) {
      const reply = new ReplyBuilder([]);
      const draft = reply.tool("#0", "a");
      draft.name = "calc";
      draft.json = json;
      expect(reply.finish("toolUse"), json).toMatchObject({ content: [], stopReason: "error", errorMessage: "工具 calc 的参数不是合法的 JSON：参数必须是一个 JSON 对象" });
    }
    const reply = new ReplyBuilder([]);
    const draft = reply.tool("#0", "a");
    draft.name = "calc";
    draft.json = "{坏";
    const { errorMessage } = reply.finish("toolUse");
    expect(errorMessage).toMatch(/^工具 calc 的参数不是合法的 JSON：/);
    expect(errorMessage).not.toContain("undefined");
    expect(errorMessage).toContain("JSON");
  });
});
