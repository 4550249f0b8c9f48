import { describe, expect, it } from "vitest";

import { describeNetworkError } from "../src/providers/http-error.js";
import { redactSecrets } from "../src/providers/guards/settings.js";

describe("错误措辞里不留秘密", () => {
  it("网络错误：fetch 原文里 URL 带的账号口令被抹掉", () => {
    const error = new TypeError("Request cannot be constructed from a URL that includes credentials: https://me:s3cret@api.example.com/v1/chat/completions");
    const text = describeNetworkError(error);
    expect(text).not.toContain("s3cret");
    expect(text).toContain("https://***@api.example.com/v1/chat/completions");
  });

  it("服务器回显的密钥被抹掉；太短的占位值不动", () => {
    expect(redactSecrets("Incorrect API key provided: sk-test-1234", ["sk-test-1234"])).toBe("Incorrect API key provided: ***");
    expect(redactSecrets("key k", ["k"])).toBe("key k");
  });
});
