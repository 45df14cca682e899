// A problem of the schema the generator handles (a pattern it cannot check) is a compiler
// warning at the call, with its JSON pointer; denied here so that the message is pinned.
#![deny(deprecated)]

agents_runtime::agent!("unchecked_pattern");

fn main() {}
