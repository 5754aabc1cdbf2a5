pub mod client_runner;
pub mod http_runner;
pub mod jsondiff;
pub mod runner;
pub mod target;
pub mod tools;
pub mod transcript;
