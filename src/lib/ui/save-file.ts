/** Saves a file built in the page through the browser's download (an object URL, revoked later). */
export function saveFile(file: { text: string; fileName: string; type: string }): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: file.type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
