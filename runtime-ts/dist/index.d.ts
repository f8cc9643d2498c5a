export * from "./contract.js";
export * from "./errors.js";
