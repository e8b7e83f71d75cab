//! The conversation: every question `migrate` asks is known once the plan is built, is shown
//! with it, and is answered before any byte is copied. `--yes` answers each as Enter would, except
//! that it also confirms the two things a person must agree to: copying, and `--remove-source`.

use crate::base::error::Result;
use crate::base::units;
use crate::migrate::kernel::ask::answer;
use crate::migrate::kernel::engine::plan::{NodeModules, Plan, Question, QuestionId};
use crate::migrate::kernel::options::Options;
use crate::migrate::kernel::repairs::Repairs;
use crate::migrate::kernel::repairs::fixups::{self, ConfigIssue};
use crate::migrate::kernel::repairs::windows_side::WindowsPlan;
use crate::migrate::kernel::repairs::worktrees;
use crate::migrate::kernel::run::Run;
use std::path::Path;

/// What the person decided; the plan carries the rest (node_modules left behind, worktrees).
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// Copy, verify and move it there.
    pub go: bool,
    /// Delete from the source what the manifest proves was copied, after the copy (None: not
    /// asked, no --remove-source).
    pub remove_source: Option<bool>,
    /// The git settings the Windows drive forced, each with whether to reset it.
    pub git_settings: Vec<ConfigIssue>,
    /// On WSL: the Windows side as planned, and whether to add the safe.directory entries.
    pub windows: Option<WindowsPlan>,
    pub add_safe_directory: bool,
    /// Rewrite the old path inside the copy's virtualenvs (`venvs.rs`).
    pub virtualenvs: bool,
    /// What the answers left behind that the plan's time counted ("node_modules"): the copy
    /// is priced again without it, and that figure is the one asked with and quoted after.
    pub left_behind: Vec<&'static str>,
}

/// The settings of `source`'s own `.git/config` that are wrong on ext4, before any is decided.
pub fn git_settings(source: &Path) -> Vec<ConfigIssue> {
    if source.join(".git").is_dir() {
        fixups::config_issues(source)
    } else {
        Vec::new()
    }
}

/// Every question the plan raises, in the order they are asked; the plan shows them.
pub fn for_plan(plan: &Plan, repairs: &Repairs, args: &Options) -> Vec<Question> {
    let mut questions = Vec::new();
    if all_node_modules(plan, repairs).next().is_some() && !args.skip_node_modules {
        questions.push(node_modules_question(plan, repairs));
    }
    questions.extend(build_output_question(repairs));
    questions.extend(virtualenvs_question(repairs));
    questions.extend(settings_questions(&repairs.git_settings));
    questions.extend(worktrees::questions(&repairs.worktrees));
    questions.extend(finishing_questions(args, &plan.copy.source, Some(plan)));
    questions.extend(safe_directory_question(repairs));
    questions.push(Question {
        id: QuestionId::Copy,
        text: format!(
            "Copy, verify and move it to {}?",
            plan.copy.destination.display()
        ),
        default: true,
        with_yes: true,
    });
    questions
}

/// The repository's node_modules and those of the worktrees that can move along with it.
fn all_node_modules<'a>(
    plan: &'a Plan,
    repairs: &'a Repairs,
) -> impl Iterator<Item = &'a NodeModules> {
    let worktrees = repairs.worktrees.iter().filter_map(|w| w.plan.as_deref());
    plan.node_modules
        .iter()
        .chain(worktrees.flat_map(|p| p.node_modules.iter()))
}

fn node_modules_question(plan: &Plan, repairs: &Repairs) -> Question {
    let (files, symlinks, bytes) = all_node_modules(plan, repairs).fold((0, 0, 0), |a, n| {
        (a.0 + n.files, a.1 + n.symlinks, a.2 + n.bytes)
    });
    // Windows builds cannot run here: reinstalling is the only way to a working tree.
    let windows = all_node_modules(plan, repairs).any(|n| !n.windows_builds.is_empty());
    Question {
        id: QuestionId::NodeModules,
        text: format!(
            "Leave node_modules behind ({}) and reinstall it at the destination?",
            units::tree(files, symlinks, bytes, false)
        ),
        default: windows,
        with_yes: windows,
    }
}

/// Whether to leave behind the build output its tool writes again after a move: Enter and
/// `--yes` leave it (copying it buys nothing).
fn build_output_question(repairs: &Repairs) -> Option<Question> {
    let first = repairs.build_output.first()?;
    let (files, bytes) = repairs
        .build_output
        .iter()
        .fold((0, 0), |(n, b), o| (n + o.files, b + o.bytes));
    let what = if repairs.build_output.len() == 1 {
        format!("{} ({})", first.path, first.kind.name())
    } else {
        format!("{} folders of build output", repairs.build_output.len())
    };
    let saved: Option<u64> = repairs.build_output.iter().map(|o| o.saved_ms).sum();
    let saving = saved.map_or(String::new(), |ms| {
        format!("; about {} less to copy", units::duration_ms(ms as f64))
    });
    Some(Question {
        id: QuestionId::BuildOutput,
        text: format!(
            "Leave {what} behind ({}{saving})? Its tool writes it again after a move.",
            units::tree(files, 0, bytes, false)
        ),
        default: true,
        with_yes: true,
    })
}

/// Whether to point the copied virtualenvs at the destination: yes is the only way they run
/// from there, so Enter and `--yes` both say yes.
fn virtualenvs_question(repairs: &Repairs) -> Option<Question> {
    let copied: Vec<&crate::migrate::kernel::repairs::venvs::Virtualenv> =
        repairs.virtualenvs.iter().filter(|v| !v.skipped).collect();
    let first = copied.first()?;
    let what = if copied.len() == 1 {
        format!("the virtualenv {}", first.path)
    } else {
        format!("the {} virtualenvs", copied.len())
    };
    let (files, bytes) = copied
        .iter()
        .fold((0, 0), |(n, b), v| (n + v.files, b + v.bytes));
    Some(Question {
        id: QuestionId::Virtualenvs,
        text: format!(
            "Rewrite the old path inside {what} ({}) once the copy is verified, so it runs from the destination?",
            units::tree(files, 0, bytes, false)
        ),
        default: true,
        with_yes: true,
    })
}

fn settings_questions(settings: &[ConfigIssue]) -> Vec<Question> {
    settings
        .iter()
        .filter_map(|issue| {
            let value = issue.reset_to.as_ref()?;
            Some(Question {
                id: QuestionId::Setting(issue.key.clone()),
                text: format!(
                    "{} is {} ({}). Set it to {value} in the copy?",
                    issue.key, issue.value, issue.why
                ),
                default: true,
                with_yes: issue.drvfs_caused,
            })
        })
        .collect()
}

/// Where a Windows git is installed and Windows' global config, within WSL's reach, lacks
/// the copy's entries.
fn safe_directory_question(repairs: &Repairs) -> Option<Question> {
    let offer = repairs.windows.as_ref()?.safe_directory.as_ref()?;
    let config = offer.config.as_deref()?;
    (!offer.missing.is_empty()).then(|| Question {
        id: QuestionId::SafeDirectory,
        text: format!(
            "Add the copy's safe.directory entries ({} and {}) to {}, so {} {} it?",
            r"\\wsl.localhost",
            r"\\wsl$",
            crate::base::pathtext::display(config),
            crate::measure::windows_tools::names(&offer.clients),
            if offer.clients.len() == 1 {
                "opens"
            } else {
                "open"
            }
        ),
        default: true,
        with_yes: true,
    })
}

/// The questions about what happens after the copy, asked before it.
fn finishing_questions(args: &Options, source: &Path, plan: Option<&Plan>) -> Vec<Question> {
    if !args.remove_source {
        return Vec::new();
    }
    // The copy's own counts: what is copied is what the removal may delete, no more.
    let what = plan.map_or("the files".to_string(), |p| {
        format!(
            "the {}",
            units::tree(
                p.copy.totals.files,
                p.copy.totals.symlinks,
                p.copy.totals.bytes,
                false
            )
        )
    });
    vec![Question {
        id: QuestionId::RemoveSource,
        text: format!(
            "Once the copy is verified, delete from {} {what} the manifest proves were copied?",
            source.display()
        ),
        default: false,
        with_yes: true,
    }]
}

/// Asks every question of `plan.questions` (or takes the `--yes` answers) and applies the
/// answers to the plan. Stops at the first "no" to copying.
pub fn ask(run: &Run, plan: &mut Plan, repairs: &mut Repairs) -> Result<Answers> {
    let mut answers = Answers {
        git_settings: repairs.git_settings.clone(),
        windows: repairs.windows.clone(),
        virtualenvs: true,
        ..Answers::default()
    };
    for mut question in plan.questions.clone() {
        if question.id == QuestionId::Copy {
            question.text = priced_again(plan, &answers.left_behind, &question.text);
        }
        let yes = answer(run, &question)?;
        match &question.id {
            QuestionId::NodeModules if yes => {
                answers.left_behind.push("node_modules");
                plan.leave_node_modules();
                for worktree in repairs.worktrees.iter_mut().filter_map(|w| w.plan.as_mut()) {
                    worktree.leave_node_modules();
                }
            }
            QuestionId::NodeModules => {}
            QuestionId::BuildOutput if yes => {
                answers.left_behind.push("the build output");
                repairs.leave_build_output(plan);
            }
            QuestionId::BuildOutput => {}
            QuestionId::Virtualenvs => {
                answers.virtualenvs = yes;
                for venv in repairs.virtualenvs.iter_mut().filter(|v| !v.skipped) {
                    venv.rewrite = yes;
                }
            }
            QuestionId::Worktrees => worktrees::decide(&mut repairs.worktrees, yes),
            QuestionId::RemoveSource => answers.remove_source = Some(yes),
            QuestionId::Copy => answers.go = yes,
            QuestionId::SafeDirectory => answers.add_safe_directory = yes,
            QuestionId::Setting(key) => reset_if(&mut answers.git_settings, key, yes),
        }
    }
    Ok(answers)
}

/// The last question, with the copy's time priced again when the answers left something
/// behind: the person agrees to the figure the result is then read against.
fn priced_again(plan: &Plan, left_behind: &[&str], text: &str) -> String {
    if left_behind.is_empty() {
        return text.to_string();
    }
    let copy = &plan.copy;
    let Some(ms) =
        crate::migrate::kernel::engine::estimate::of(copy, &copy.resume()).predicted_copy_ms
    else {
        return text.to_string();
    };
    format!(
        "{} (about {} now, {} left behind)?",
        text.trim_end_matches('?'),
        units::duration_ms(ms as f64),
        left_behind.join(" and ")
    )
}

/// The questions left when a verified copy only needs finishing: the git settings and
/// `--remove-source`. Nothing more is copied, so asking now is still before copying.
pub fn ask_to_finish(run: &Run) -> Result<Answers> {
    let source = run.source();
    let mut answers = Answers {
        go: true,
        git_settings: git_settings(source),
        // The copy is sealed and the plan is not shown again: Enter's answer.
        virtualenvs: true,
        ..Answers::default()
    };
    let mut questions = settings_questions(&answers.git_settings);
    questions.extend(finishing_questions(run.args, source, None));
    for question in questions {
        let yes = answer(run, &question)?;
        match &question.id {
            QuestionId::RemoveSource => answers.remove_source = Some(yes),
            QuestionId::Setting(key) => reset_if(&mut answers.git_settings, key, yes),
            _ => {}
        }
    }
    Ok(answers)
}

/// The answer to the question about the git setting `key`: reset it in the copy, or not.
fn reset_if(settings: &mut [ConfigIssue], key: &str, yes: bool) {
    for issue in settings.iter_mut().filter(|i| i.key == key) {
        issue.reset = yes;
    }
}
