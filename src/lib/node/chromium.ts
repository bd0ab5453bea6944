/**
 * How every script and test here starts Debian's Chromium (never a downloaded build): the flags
 * that keep it from talking to anything but loopback, so "no request leaves the machine" means
 * what it says.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
];

/**
 * `--enable-unsafe-webgpu` exposes a software WebGPU adapter (SwiftShader) in headless Chromium
 * here, which is enough to test the WebGPU code path; with a GPU it exposes the real one.
 */
export const WEBGPU_ARGS = ['--enable-unsafe-webgpu'];
