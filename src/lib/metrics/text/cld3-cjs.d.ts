// cld3-asm's CommonJS entry (see loadLanguageIdentifier in language.ts): the package's own types.
declare module 'cld3-asm/dist/cjs/index.js' {
  export * from 'cld3-asm';
}
