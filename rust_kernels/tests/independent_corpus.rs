//! The committed independent-style corpus (tests/corpus/independent/) is what the current
//! sources emit: every port of src/independent/ compiles, and its bytecode equals the file
//! `emit-ir --corpus independent` wrote. Re-emit after changing a port (docs/corpus.md).

use std::path::Path;

use tileir_kernels::compile::{self, Options};
use tileir_kernels::independent::PORTS;

#[test]
fn committed_corpus_is_what_the_sources_emit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/independent");
    let mut stale = Vec::new();
    for port in PORTS {
        let bytes = compile::compile_port(port, &Options::default())
            .and_then(|a| a.bytecode().map_err(|e| format!("{}: bytecode: {e}", port.name)))
            .unwrap_or_else(|e| panic!("{e}"));
        let path = dir.join(format!("{}.tileirbc", port.name));
        match std::fs::read(&path) {
            Ok(committed) if committed == bytes => {}
            Ok(_) => stale.push(format!("{} differs", path.display())),
            Err(e) => stale.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(stale.is_empty(), "re-run `emit-ir --corpus independent`:\n{}", stale.join("\n"));
}

#[test]
fn every_port_names_a_reference_variant_and_a_unique_file() {
    let mut names: Vec<&str> = PORTS.iter().map(|p| p.name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), PORTS.len(), "two ports share a file name");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reference");
    for p in PORTS {
        let analysis = std::fs::read_to_string(root.join(p.reference.0).join("analysis.json"))
            .unwrap_or_else(|e| panic!("{}: reference/{}: {e}", p.name, p.reference.0));
        assert!(
            analysis.contains(&format!("\"name\": \"{}\"", p.reference.1)),
            "{}: no variant {}",
            p.name,
            p.reference.1
        );
    }
}
