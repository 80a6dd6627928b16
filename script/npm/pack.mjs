// Builds the npm packages of a release from GoReleaser's archives (listed in
// dist/artifacts.json): one package per OS and CPU holding the binary taken
// out of that platform's archive, and the main package @continuity-md/continuity
// (the launcher in script/npm/continuity, which its postinstall replaces by
// the platform's binary where it can) with them as optionalDependencies, the
// pattern of esbuild and biome. Each is packed with `npm pack` into
// dist/npm/. Run by script/dist: node script/npm/pack.mjs DIST VERSION
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, inflateRawSync } from "node:zlib";

const [dist, version] = process.argv.slice(2);
if (!dist || !version) {
  console.error("usage: node script/npm/pack.mjs DIST VERSION");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const scope = "@continuity-md";
const os = { linux: "linux", darwin: "darwin", windows: "win32" };
const cpu = { amd64: "x64", arm64: "arm64" };
const common = {
  version,
  license: "MIT",
  homepage: "https://github.com/continuity-md/continuity",
  repository: { type: "git", url: "git+https://github.com/continuity-md/continuity.git" },
};

// untar returns the bytes of the file named name in a tar.gz archive.
function untar(archive, name) {
  const tar = gunzipSync(readFileSync(archive));
  for (let off = 0; off + 512 <= tar.length; ) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start, len) => header.subarray(start, start + len).toString("latin1").replace(/\0.*$/s, "");
    const prefix = field(345, 155);
    const path = (prefix ? prefix + "/" : "") + field(0, 100);
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1);
    if ((type === "0" || type === "") && path.replace(/^\.\//, "") === name) {
      return tar.subarray(off + 512, off + 512 + size);
    }
    off += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${archive}: no ${name}`);
}

// unzip returns the bytes of the file named name in a zip archive.
function unzip(archive, name) {
  const zip = readFileSync(archive);
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error(`${archive}: not a zip archive`);
  let off = zip.readUInt32LE(end + 16);
  for (let i = zip.readUInt16LE(end + 10); i > 0; i--) {
    if (zip.readUInt32LE(off) !== 0x02014b50) throw new Error(`${archive}: bad central directory`);
    const method = zip.readUInt16LE(off + 10);
    const size = zip.readUInt32LE(off + 20);
    const nameLen = zip.readUInt16LE(off + 28);
    const skip = nameLen + zip.readUInt16LE(off + 30) + zip.readUInt16LE(off + 32);
    const local = zip.readUInt32LE(off + 42);
    if (zip.subarray(off + 46, off + 46 + nameLen).toString("utf8") === name) {
      const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const raw = zip.subarray(data, data + size);
      if (method === 0) return raw;
      if (method === 8) return inflateRawSync(raw);
      throw new Error(`${archive}: ${name}: compression method ${method}`);
    }
    off += 46 + skip;
  }
  throw new Error(`${archive}: no ${name}`);
}

function pack(dir, out) {
  execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
}

const out = join(dist, "npm");
const build = join(out, "build");
rmSync(out, { recursive: true, force: true });
mkdirSync(build, { recursive: true });

const archives = JSON.parse(readFileSync(join(dist, "artifacts.json"), "utf8")).filter((a) => a.type === "Archive");
const optional = {};
for (const a of archives.sort((x, y) => x.path.localeCompare(y.path))) {
  const platform = `${os[a.goos]}-${cpu[a.goarch]}`;
  if (!os[a.goos] || !cpu[a.goarch]) throw new Error(`no npm platform for ${a.goos}/${a.goarch}`);
  const exe = a.goos === "windows" ? "continuity.exe" : "continuity";
  const name = `${scope}/continuity-${platform}`;
  const dir = join(build, `continuity-${platform}`);
  mkdirSync(join(dir, "bin"), { recursive: true });
  const archive = join(dirname(dist), a.path);
  const bytes = a.path.endsWith(".zip") ? unzip(archive, exe) : untar(archive, exe);
  writeFileSync(join(dir, "bin", exe), bytes);
  chmodSync(join(dir, "bin", exe), 0o755);
  cpSync(join(repo, "LICENSE"), join(dir, "LICENSE"));
  writeFileSync(join(dir, "README.md"), `# ${name}\n\nThe \`continuity\` binary for ${platform}, installed by \`${scope}/continuity\`: install that package, not this one.\n`);
  writeFileSync(join(dir, "package.json"), JSON.stringify({
    name, ...common,
    description: `The continuity binary for ${platform} (installed by ${scope}/continuity)`,
    os: [os[a.goos]], cpu: [cpu[a.goarch]],
    files: ["bin/"],
    preferUnplugged: true,
  }, null, 2) + "\n");
  optional[name] = version;
  pack(dir, out);
}

const main = join(build, "continuity");
cpSync(join(here, "continuity"), main, { recursive: true });
cpSync(join(repo, "LICENSE"), join(main, "LICENSE"));
writeFileSync(join(main, "package.json"), JSON.stringify({
  name: `${scope}/continuity`, ...common,
  description: "Keeps a coding agent's work continuous across context compaction and sessions",
  bin: { continuity: "bin/continuity" },
  files: ["bin/", "install.js"],
  scripts: { postinstall: "node install.js" },
  engines: { node: ">=18" },
  optionalDependencies: optional,
}, null, 2) + "\n");
pack(main, out);
rmSync(build, { recursive: true, force: true });
