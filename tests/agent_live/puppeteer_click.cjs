// Puppeteer (puppeteer-core from npm, no browser of its own) connected as the first argument, a
// JSON object of puppeteer.connect()'s options, says: clicks #submit on the page titled "Form",
// prints {"title", "clicks", "pages"} as JSON and disconnects (the browser stays).
const puppeteer = require("puppeteer-core");

async function main() {
  const options = JSON.parse(process.argv[2]);
  const browser = await puppeteer.connect({...options, defaultViewport: null});
  try {
    const pages = await browser.pages();
    const titles = await Promise.all(pages.map((page) => page.title()));
    const page = pages[titles.indexOf("Form")];
    await page.click("#submit");
    const clicks = await page.evaluate(() => window.clicks);
    console.log(JSON.stringify({title: await page.title(), clicks, pages: titles}));
  } finally {
    await browser.disconnect();
  }
}

main().catch((error) => {
  // Puppeteer rejects with the socket's ErrorEvent when the handshake is refused: its message.
  console.error(error && (error.stack || error.message) || require("node:util").inspect(error));
  process.exit(1);
});
