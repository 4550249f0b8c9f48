// npm run book（在 book/ 里：npm run serve）：要不要构建、怎样发布，见 lib/serve-book.ts。
import { serveBook } from "./lib/serve-book.ts";

await serveBook(process.argv.slice(2));
