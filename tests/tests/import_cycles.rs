//! No file imports a module that imports it back: the file-level import graph of every crate of
//! the workspace has no cycle (of two files or more).
//!
//! How the graph is built. `cargo modules` would be one more tool for CI to install and reports
//! module cycles, not file cycles; so the files are parsed here with `syn` and names are
//! resolved by a small hand-written resolver that knows only what this check needs:
//! - Every target root of every workspace crate (`src/lib.rs`, `src/main.rs`, `src/bin/*.rs`,
//!   `tests/*.rs`, `benches/*.rs`) is read with its `mod` tree: `x.rs`, `x/mod.rs`, inline
//!   `mod x { .. }` and `#[path = ".."]`.
//! - File A has an edge to file B when A names something that B defines: in a private `use`
//!   (a glob `use m::*` names the module `m`), or in a path of code (types, expressions,
//!   patterns, bounds, macro names) that has two segments or more or starts with `crate`,
//!   `self` or `super`, or in a one-segment path that an import brought in.
//! - Re-exports (`pub use`, `pub(crate) use`, ..) are aliases: a name is followed through them,
//!   and through glob imports, to the file that defines it, and the re-export itself is no
//!   edge. So a facade `mod.rs` may re-export its children while they use what it re-exports.
//! - `mod x;` is no edge: a parent holding a child is not an import.
//!
//! Limits (what a parser without type checking cannot see): items under `#[cfg(test)]` are
//! skipped, on purpose (a unit test may reach its module through the registry that lists it);
//! paths inside macro arguments (`format!(..)`, `assert!(..)`) and method calls leave no
//! trace, so a dependency only through them is missed; names are looked up without
//! namespaces (a module wins over an item, an item over an import); a local variable named
//! like an imported item is taken for the item.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use syn::visit::{self, Visit};

/// The file-level import graph: for each file, the files it uses, each with one path that
/// shows why.
type Graph = BTreeMap<PathBuf, BTreeMap<PathBuf, String>>;

#[test]
fn no_file_imports_a_module_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.canonicalize().unwrap();
    let graph = workspace_graph(&root);
    assert!(
        graph.len() > 100,
        "only {} files found under {}: the crate roots were not found",
        graph.len(),
        root.display()
    );
    let cycles = cycles(&graph);
    let shown: Vec<String> = cycles
        .iter()
        .map(|(c, tangle)| describe(c, tangle, &graph, &root))
        .collect();
    assert!(
        cycles.is_empty(),
        "{} import cycle(s) between files:\n{}",
        cycles.len(),
        shown.join("\n")
    );
}

#[test]
fn the_check_finds_two_and_three_file_cycles_and_follows_re_exports() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("Cargo.toml", "[package]\nname = \"toy\"\n"),
        (
            "src/lib.rs",
            "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\npub mod facade;\npub use d::D;\n",
        ),
        // a <-> b through a `use` and a type path.
        ("src/a.rs", "use crate::b::B;\npub struct A(B);\n"),
        ("src/b.rs", "pub struct B(Box<crate::a::A>);\n"),
        // c -> d -> e -> c, the first edge through the crate root's re-export.
        ("src/c.rs", "pub fn c() { let _ = crate::D; }\n"),
        ("src/d.rs", "pub struct D;\nfn d() { super::e::e() }\n"),
        ("src/e.rs", "use super::c as up;\npub fn e() { up::c() }\n"),
        // The facade re-exports its kind file; the child uses the re-export and the facade
        // lists the child: no cycle. The child's unit test uses the facade: skipped.
        (
            "src/facade/mod.rs",
            "mod kind;\npub mod child;\npub use kind::Kind;\n\
             pub static ALL: &[Kind] = &[child::ONE];\nfn f(_: Kind) {}\n",
        ),
        ("src/facade/kind.rs", "pub struct Kind;\n"),
        (
            "src/facade/child.rs",
            "use super::Kind;\npub const ONE: Kind = Kind;\n\
             #[cfg(test)]\nmod tests { fn t() { let _ = super::super::ALL; } }\n",
        ),
    ];
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let graph = workspace_graph(dir.path());
    let src = dir.path().join("src");
    let file = |n: &str| src.join(n);
    assert_eq!(
        graph[&file("facade/mod.rs")].keys().collect::<Vec<_>>(),
        [&file("facade/child.rs"), &file("facade/kind.rs")]
    );
    assert_eq!(
        graph[&file("facade/child.rs")].keys().collect::<Vec<_>>(),
        [&file("facade/kind.rs")]
    );
    let found: Vec<BTreeSet<PathBuf>> = cycles(&graph)
        .into_iter()
        .map(|(c, tangle)| {
            assert_eq!(c.iter().cloned().collect::<BTreeSet<_>>(), tangle);
            tangle
        })
        .collect();
    let expected: Vec<BTreeSet<PathBuf>> = vec![
        ["a.rs", "b.rs"].map(file).into(),
        ["c.rs", "d.rs", "e.rs"].map(file).into(),
    ];
    assert_eq!(found, expected);
}

/// The import graph of every crate under `root` (each directory with a `Cargo.toml` and a
/// `src/`, and `root` itself when it is a crate).
fn workspace_graph(root: &Path) -> Graph {
    let mut graph = Graph::new();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .chain([root.to_path_buf()])
        .filter(|d| d.join("Cargo.toml").is_file() && d.join("src").is_dir())
        .collect();
    crates.sort();
    for krate in crates {
        for target in target_roots(&krate) {
            let tree = ModuleTree::load(&target);
            tree.add_edges(&mut graph);
        }
    }
    graph
}

/// The root files of a crate's targets.
fn target_roots(krate: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["src/lib.rs", "src/main.rs"]
        .iter()
        .map(|f| krate.join(f))
        .filter(|f| f.is_file())
        .collect();
    for dir in ["src/bin", "tests", "benches"] {
        if let Ok(entries) = std::fs::read_dir(krate.join(dir)) {
            let mut files: Vec<PathBuf> = entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "rs"))
                .collect();
            files.sort();
            roots.extend(files);
        }
    }
    roots
}

/// A module of one crate target: its file and what it defines, imports and names.
#[derive(Default)]
struct Module {
    file: PathBuf,
    parent: Option<usize>,
    children: HashMap<String, usize>,
    /// Names of the items defined here (not modules, not imports).
    items: HashSet<String>,
    /// Explicit imports, private and re-exported, by the name they bring in.
    imports: HashMap<String, Vec<String>>,
    /// Glob imports (`use path::*`).
    globs: Vec<Vec<String>>,
    /// Paths that are edges when they resolve: private imports and paths in code.
    named: Vec<Vec<String>>,
    /// One-segment paths in code; edges only when an import brought the name in.
    single: Vec<String>,
}

/// What a path resolves to: a module, or an item defined in a module.
#[derive(Clone, Copy)]
enum Target {
    Module(usize),
    ItemIn(usize),
}

/// The modules of one crate target; module 0 is the root.
struct ModuleTree {
    modules: Vec<Module>,
}

impl ModuleTree {
    fn load(root: &Path) -> ModuleTree {
        let mut tree = ModuleTree {
            modules: Vec::new(),
        };
        let file = parse(root);
        tree.modules.push(Module {
            file: root.to_path_buf(),
            ..Module::default()
        });
        tree.collect(0, &file.items, root.parent().unwrap());
        tree
    }

    /// Records the items of module `m`; `dir` is where its `mod x;` files are.
    fn collect(&mut self, m: usize, items: &[syn::Item], dir: &Path) {
        for item in items {
            if is_test_only(item_attrs(item)) {
                continue;
            }
            match item {
                syn::Item::Mod(decl) => self.collect_mod(m, decl, dir),
                syn::Item::Use(u) if u.leading_colon.is_none() => {
                    let public = !matches!(u.vis, syn::Visibility::Inherited);
                    let module = &mut self.modules[m];
                    flatten_use(&u.tree, &mut Vec::new(), &mut |path, name| {
                        match name {
                            Some(name) => {
                                module.imports.insert(name, path.clone());
                            }
                            None => module.globs.push(path.clone()),
                        }
                        if !public {
                            module.named.push(path);
                        }
                    });
                }
                _ => {
                    if let Some(name) = item_name(item) {
                        self.modules[m].items.insert(name);
                    }
                    let mut paths = PathCollector::default();
                    paths.visit_item(item);
                    self.modules[m].named.extend(paths.named);
                    self.modules[m].single.extend(paths.single);
                }
            }
        }
    }

    fn collect_mod(&mut self, parent: usize, decl: &syn::ItemMod, dir: &Path) {
        let name = decl.ident.to_string();
        let id = self.modules.len();
        let here = &self.modules[parent].file;
        let (file, items, child_dir) = match &decl.content {
            Some((_, items)) => (here.clone(), items.clone(), dir.join(&name)),
            None => {
                let file = match path_attr(&decl.attrs) {
                    Some(p) => here.parent().unwrap().join(p),
                    None if dir.join(format!("{name}.rs")).is_file() => {
                        dir.join(format!("{name}.rs"))
                    }
                    None => dir.join(&name).join("mod.rs"),
                };
                let child_dir = if file.file_name().is_some_and(|f| f == "mod.rs") {
                    file.parent().unwrap().to_path_buf()
                } else {
                    dir.join(&name)
                };
                (file.clone(), parse(&file).items, child_dir)
            }
        };
        self.modules.push(Module {
            file,
            parent: Some(parent),
            ..Module::default()
        });
        self.modules[parent].children.insert(name, id);
        self.collect(id, &items, &child_dir);
    }

    /// What `name` means inside module `m`; `stack` guards against import loops.
    fn lookup(&self, m: usize, name: &str, stack: &mut Vec<(usize, String)>) -> Option<Target> {
        let module = &self.modules[m];
        if let Some(&c) = module.children.get(name) {
            return Some(Target::Module(c));
        }
        if module.items.contains(name) {
            return Some(Target::ItemIn(m));
        }
        let key = (m, name.to_string());
        if stack.contains(&key) {
            return None;
        }
        stack.push(key);
        let found = match module.imports.get(name) {
            Some(path) => self.resolve(m, path, stack),
            None => module.globs.iter().find_map(|glob| {
                match self.resolve(m, glob, stack)? {
                    Target::Module(t) => self.lookup(t, name, stack),
                    Target::ItemIn(_) => None, // a glob of an enum's variants
                }
            }),
        };
        stack.pop();
        found
    }

    /// What `path`, written in module `m`, names; `None` for other crates, the standard
    /// library and local names.
    fn resolve(
        &self,
        m: usize,
        path: &[String],
        stack: &mut Vec<(usize, String)>,
    ) -> Option<Target> {
        let (first, rest) = path.split_first()?;
        let mut at = match first.as_str() {
            "crate" => Target::Module(0),
            "self" => Target::Module(m),
            "super" => Target::Module(self.modules[m].parent?),
            name => self.lookup(m, name, stack)?,
        };
        for segment in rest {
            let Target::Module(module) = at else {
                break; // an associated item or a variant of the item found
            };
            at = match segment.as_str() {
                "self" => at,
                "super" => Target::Module(self.modules[module].parent?),
                // Unknown in a module of this crate (e.g. a macro): the module's file.
                name => self
                    .lookup(module, name, stack)
                    .unwrap_or(Target::ItemIn(module)),
            };
        }
        Some(at)
    }

    fn file_of(&self, target: Target) -> &Path {
        match target {
            Target::Module(m) | Target::ItemIn(m) => &self.modules[m].file,
        }
    }

    /// Adds this tree's edges between different files to `graph`.
    fn add_edges(&self, graph: &mut Graph) {
        for (m, module) in self.modules.iter().enumerate() {
            let from = graph.entry(module.file.clone()).or_default();
            let mut add = |target: Target, why: String| {
                let to = self.file_of(target);
                if to != module.file {
                    from.entry(to.to_path_buf()).or_insert(why);
                }
            };
            for path in &module.named {
                if let Some(target) = self.resolve(m, path, &mut Vec::new()) {
                    add(target, path.join("::"));
                }
            }
            for name in &module.single {
                if module.imports.contains_key(name) {
                    if let Some(target) = self.lookup(m, name, &mut Vec::new()) {
                        add(target, name.clone());
                    }
                }
            }
        }
    }
}

/// Collects the paths named in an item's code, skipping test-only items and attributes.
#[derive(Default)]
struct PathCollector {
    named: Vec<Vec<String>>,
    single: Vec<String>,
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            match segments.as_slice() {
                [one] if !matches!(one.as_str(), "crate" | "self" | "super") => {
                    self.single.push(one.clone())
                }
                _ => self.named.push(segments),
            }
        }
        visit::visit_path(self, path);
    }

    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_only(item_attrs(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Fn(f) => &f.attrs,
            syn::ImplItem::Const(c) => &c.attrs,
            syn::ImplItem::Type(t) => &t.attrs,
            _ => return visit::visit_impl_item(self, item),
        };
        if !is_test_only(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    /// A `use` inside a function body: private, so each path is an edge.
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_none() {
            flatten_use(&u.tree, &mut Vec::new(), &mut |path, _| {
                self.named.push(path)
            });
        }
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    /// `pub(super)` and `pub(in path)` name where an item is visible, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}

/// Calls `each(path, Some(name))` for every name a `use` tree brings in and `each(path, None)`
/// for every glob.
fn flatten_use(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    each: &mut dyn FnMut(Vec<String>, Option<String>),
) {
    let full = |prefix: &Vec<String>, ident: &syn::Ident| {
        let mut path = prefix.clone();
        if ident != "self" {
            path.push(ident.to_string());
        }
        path
    };
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, each);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let path = full(prefix, &n.ident);
            let name = path.last().cloned();
            each(path, name);
        }
        syn::UseTree::Rename(r) => each(full(prefix, &r.ident), Some(r.rename.to_string())),
        syn::UseTree::Glob(_) => each(prefix.clone(), None),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| flatten_use(t, prefix, each)),
    }
}

fn parse(file: &Path) -> syn::File {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("cannot parse {}: {e}", file.display()))
}

/// The name an item defines, if it is one that paths can name.
fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// True for `#[cfg(test)]`.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string().trim() == "test")
    })
}

/// The file named by `#[path = ".."]`.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// For every strongly connected set of two files or more (in file order): one shortest cycle
/// through its first file, and the whole set.
fn cycles(graph: &Graph) -> Vec<(Vec<PathBuf>, BTreeSet<PathBuf>)> {
    let reaches = |from: &PathBuf| -> HashMap<PathBuf, PathBuf> {
        // Breadth-first: each file reached, with the file it was reached from.
        let mut came_from = HashMap::new();
        let mut queue = VecDeque::from([from.clone()]);
        while let Some(at) = queue.pop_front() {
            for next in graph.get(&at).into_iter().flat_map(|e| e.keys()) {
                if !came_from.contains_key(next) {
                    came_from.insert(next.clone(), at.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        came_from
    };
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut found = Vec::new();
    for file in graph.keys() {
        if seen.contains(file) {
            continue;
        }
        let came_from = reaches(file);
        if !came_from.contains_key(file) {
            continue;
        }
        // Walk back from `file` to itself: the shortest cycle through it.
        let mut cycle = vec![file.clone()];
        let mut at = came_from[file].clone();
        while &at != file {
            cycle.push(at.clone());
            at = came_from[&at].clone();
        }
        cycle.reverse();
        cycle.rotate_right(1);
        // Every file on a cycle with `file` is reported with it.
        let tangle: BTreeSet<PathBuf> = came_from
            .keys()
            .filter(|other| reaches(other).contains_key(file))
            .cloned()
            .collect();
        seen.extend(tangle.iter().cloned());
        found.push((cycle, tangle));
    }
    found
}

/// `a.rs -> b.rs (crate::b::B) -> a.rs (crate::a::A)`, paths relative to `root`, and the other
/// files of the tangle.
fn describe(cycle: &[PathBuf], tangle: &BTreeSet<PathBuf>, graph: &Graph, root: &Path) -> String {
    let name = |p: &PathBuf| p.strip_prefix(root).unwrap_or(p).display().to_string();
    let mut text = format!("  {}", name(&cycle[0]));
    for (i, to) in cycle.iter().enumerate().skip(1).chain([(0, &cycle[0])]) {
        let from = &cycle[if i == 0 { cycle.len() - 1 } else { i - 1 }];
        text += &format!(" -> {} ({})", name(to), graph[from][to]);
    }
    let others: Vec<String> = tangle
        .difference(&cycle.iter().cloned().collect())
        .map(name)
        .collect();
    if !others.is_empty() {
        text += &format!("\n    and on cycles with these: {}", others.join(", "));
    }
    text
}
